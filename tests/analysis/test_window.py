"""The summary of a window of intervals keeps every count the intervals carry: errors by
kind and the outcomes of lightweight transactions (from literal interval records)."""

from __future__ import annotations

from casslab.analysis.window import window_summary
from casslab.engine_contract.engine_records import (
    ErrorKind,
    IntervalRecord,
    LatencyStats,
    OpStats,
)
from casslab.engine_contract.hdr import parse_interval_log
from hdr_literals import log_text

BUCKET = 1000  # every operation in the HDR bucket of 0.512 ms


def _lwt(count: int, applied: int, errors: dict[ErrorKind, int]) -> OpStats:
    latency = LatencyStats(
        count=count, mean_ms=0.5, p50_ms=0.5, p95_ms=0.5, p99_ms=0.5, p999_ms=0.5, max_ms=0.5
    )
    return OpStats(
        count=count,
        errors=sum(errors.values()),
        op_rate=float(count),
        applied=applied,
        not_applied=count - applied,
        errors_by_kind=errors,
        response=latency,
        service=latency,
    )


def _interval(t0: float, stats: OpStats) -> IntervalRecord:
    return IntervalRecord(
        t_start_s=t0, t_end_s=t0 + 1.0, threads=2, total=stats, ops={"insert": stats}
    )


def test_a_window_sums_lwt_outcomes_and_errors_by_kind_of_its_intervals_only() -> None:
    intervals = [
        _interval(0.0, _lwt(10, 10, {ErrorKind.OVERLOADED: 9})),  # warm-up: left out
        _interval(1.0, _lwt(8, 6, {ErrorKind.WRITE_TIMEOUT: 1})),
        _interval(2.0, _lwt(7, 2, {ErrorKind.WRITE_TIMEOUT: 2, ErrorKind.UNAVAILABLE: 1})),
    ]
    lines = []
    for i in intervals[1:]:
        n = i.total.count
        lines += [("insert", i.t_start_s, 1.0, {BUCKET: n})]
        lines += [("insert.service", i.t_start_s, 1.0, {BUCKET: n})]

    window = window_summary(intervals[1:], parse_interval_log(log_text(lines)))

    insert = window.ops["insert"]
    assert (insert.count, insert.applied, insert.not_applied) == (15, 8, 7)
    assert insert.errors == 4
    assert insert.errors_by_kind == {ErrorKind.UNAVAILABLE: 1, ErrorKind.WRITE_TIMEOUT: 3}
    assert window.total.errors_by_kind == insert.errors_by_kind
