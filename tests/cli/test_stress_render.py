"""casslab.cli.stress_render: engine records as cassandra-stress and YCSB text."""

from __future__ import annotations

import pytest

from casslab.cli import stress_render as render
from casslab.engine_contract.engine_records import (
    ErrorKind,
    ErrorRecord,
    IntervalRecord,
    LatencyStats,
    OpStats,
    RampStep,
    SummaryRecord,
    VerifyStats,
)
from casslab.engine_contract.workload_spec import Consistency

LAT = LatencyStats(
    count=100, mean_ms=1.25, p50_ms=1.0, p95_ms=2.5, p99_ms=5.0, p999_ms=9.9, max_ms=12.3
)
SLOW = LatencyStats(
    count=100, mean_ms=40.0, p50_ms=30.0, p95_ms=90.0, p99_ms=950.0, p999_ms=1010.0, max_ms=1020.0
)
WRITE = OpStats(count=900, errors=0, op_rate=900.0, response=LAT, service=LAT)
READ = OpStats(count=100, errors=2, op_rate=100.0, rows=98, not_found=2, response=LAT, service=LAT)
TOTAL = OpStats(count=1000, errors=2, op_rate=1000.0, rows=98, response=LAT, service=LAT)


def interval(
    t_end_s: float, total: OpStats = TOTAL, ops: dict[str, OpStats] | None = None
) -> IntervalRecord:
    return IntervalRecord(
        t_start_s=t_end_s - 1.0,
        t_end_s=t_end_s,
        threads=8,
        total=total,
        ops={"write": WRITE, "read": READ} if ops is None else ops,
    )


def summary(**kwargs: object) -> SummaryRecord:
    values: dict[str, object] = {
        "duration_s": 10.0,
        "total": TOTAL,
        "ops": {"write": WRITE, "read": READ},
        "engine_version": "test",
    }
    values.update(kwargs)
    return SummaryRecord.model_validate(values)


def test_header_and_rows_align_like_cassandra_stress() -> None:
    progress = render.advance(render.StressProgress(), interval(1.0))
    header = render.stress_header(["write", "read"])
    rows = render.stress_interval_rows(interval(1.0), progress)
    assert header.startswith("type,      total ops,    op/s,    pk/s,   row/s,    mean,")
    assert header.endswith("max ms,  sum ms,  sdv ms,      mb")
    tail = "     1.2,     1.0,     2.5,     5.0,     9.9,    12.3,    1.0,  0.00000,"
    assert rows == [
        f"READ,            100,     100,     100,      98,{tail}      2,      0,       0,       0,"
        "       0,       0",
        f"WRITE,           900,     900,     900,     900,{tail}      0,      0,       0,       0,"
        "       0,       0",
        f"total,          1000,    1000,    1000,     998,{tail}      2,      0,       0,       0,"
        "       0,       0",
    ]
    commas = [i for i, c in enumerate(header) if c == ","][1:]  # after the label, as stress
    for row in rows:
        assert [i for i, c in enumerate(row) if c == ","][1:] == commas


def test_single_operation_prints_only_total_and_counts_accumulate() -> None:
    progress = render.StressProgress()
    rows: list[str] = []
    for second, rate in ((1.0, 1000.0), (2.0, 1200.0)):
        record = interval(second, TOTAL.model_copy(update={"op_rate": rate}), {"write": WRITE})
        progress = render.advance(progress, record)
        rows += render.stress_interval_rows(record, progress)
    assert [r.split(",")[0] for r in rows] == ["total", "total"]
    assert rows[1].split(",")[1].strip() == "2000"
    assert progress.total_ops == {"write": 1800, "": 2000}
    assert rows[1].split(",")[12].strip() == f"{render.relative_stderr([1000.0, 1200.0]):.5f}"


@pytest.mark.parametrize(
    ("rates", "expected"),
    [([], 0.0), ([5.0], 0.0), ([10.0, 10.0], 0.0), ([1000.0, 1200.0], 100 / 1100)],
)
def test_relative_stderr(rates: list[float], expected: float) -> None:
    assert render.relative_stderr(rates) == pytest.approx(expected)


def test_results_block() -> None:
    lines = render.stress_results(summary(duration_s=83.2))
    assert lines == [
        "Results:",
        "Op rate                   :    1,000 op/s  [READ: 100 op/s, WRITE: 900 op/s]",
        "Partition rate            :    1,000 pk/s  [READ: 100 pk/s, WRITE: 900 pk/s]",
        "Row rate                  :      901 row/s [READ: 1 row/s, WRITE: 900 row/s]",
        "Latency mean              :      1.2 ms [READ: 1.2 ms, WRITE: 1.2 ms]",
        "Latency median            :      1.0 ms [READ: 1.0 ms, WRITE: 1.0 ms]",
        "Latency 95th percentile   :      2.5 ms [READ: 2.5 ms, WRITE: 2.5 ms]",
        "Latency 99th percentile   :      5.0 ms [READ: 5.0 ms, WRITE: 5.0 ms]",
        "Latency 99.9th percentile :      9.9 ms [READ: 9.9 ms, WRITE: 9.9 ms]",
        "Latency max               :     12.3 ms [READ: 12.3 ms, WRITE: 12.3 ms]",
        "Total partitions          :      1,000 [READ: 100, WRITE: 900]",
        "Total errors              :          2 [READ: 2, WRITE: 0]",
        "Total operation time      : 00:01:23",
    ]


def test_results_show_service_time_mismatches_and_not_found_when_present() -> None:
    open_loop = TOTAL.model_copy(update={"response": SLOW, "mismatches": 3, "not_found": 2})
    read = READ.model_copy(update={"response": SLOW, "mismatches": 3})
    lines = render.stress_results(summary(total=open_loop, ops={"read": read}))
    assert "Latency 99.9th percentile :   1010.0 ms [READ: 1010.0 ms]" in lines
    assert "Service 99.9th percentile :      9.9 ms [READ: 9.9 ms]" in lines
    assert "Service mean              :      1.2 ms [READ: 1.2 ms]" in lines
    assert "Validation mismatches     :          3 [READ: 3]" in lines
    assert "Rows not found            :          2 [READ: 2]" in lines


def test_ramp_lines() -> None:
    steps = [
        RampStep(threads=4, op_rate=1000.0, p99_ms=2.0, errors=0),
        RampStep(threads=8, op_rate=1900.0, p99_ms=3.5, errors=1),
    ]
    assert render.stress_ramp(summary()) == []
    assert render.stress_ramp(summary(ramp=steps, best_threads=8)) == [
        "Thread ramp:",
        " threads,       op/s,   p99 ms,  errors",
        "       4,      1,000,      2.0,       0",
        "       8,      1,900,      3.5,       1",
        "Best thread count         : 8",
    ]


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.4, "00:00:00"), (83.2, "00:01:23"), (3725, "01:02:05")]
)
def test_format_hms(seconds: float, text: str) -> None:
    assert render.format_hms(seconds) == text


def test_ycsb_summary() -> None:
    ops = {"READ": READ, "UPDATE": WRITE}
    lines = render.ycsb_summary(summary(duration_s=4.0, ops=ops))
    assert lines[:2] == ["[OVERALL], RunTime(ms), 4000", "[OVERALL], Throughput(ops/sec), 250.5"]
    assert lines[2:11] == [
        "[READ], Operations, 102",
        "[READ], AverageLatency(us), 1250.0",
        "[READ], MaxLatency(us), 12300",
        "[READ], 50thPercentileLatency(us), 1000",
        "[READ], 95thPercentileLatency(us), 2500",
        "[READ], 99thPercentileLatency(us), 5000",
        "[READ], 99.9thPercentileLatency(us), 9900",
        "[READ], Return=OK, 100",
        "[READ], Return=ERROR, 2",
    ]
    assert lines[-1] == "[UPDATE], Return=OK, 900"
    slow = render.ycsb_summary(summary(ops={"READ": READ.model_copy(update={"response": SLOW})}))
    assert "[READ], ServiceTime99thPercentileLatency(us), 5000" in slow


def test_ycsb_status_line() -> None:
    record = interval(10.0, ops={"READ": READ})
    assert render.ycsb_status(record, 1234) == (
        "10 sec: 1234 operations; 1000.00 current ops/sec; "
        "[READ: Count=100, Max=12300, Avg=1250.00, 95=2500, 99=5000, 99.9=9900]"
    )


def test_failed_operations_counts_failures_of_all_attempts_and_names_first_kinds() -> None:
    errors = [
        ErrorRecord(op="read", message="Unavailable: alive 1"),
        ErrorRecord(op="read", message="Unavailable: alive 1"),
        ErrorRecord(op="write", message="Timeout " + "x" * 300),
        ErrorRecord(op="write", message="third kind"),
        ErrorRecord(op="write", message="fourth kind"),
    ]
    line = render.failed_operations(summary(), errors)
    assert line is not None
    assert line.startswith("2 of 1,002 operations failed (read: 2); first errors: ")
    kinds = line.split("; first errors: ")[1].split("; ")
    assert kinds[0] == "read: Unavailable: alive 1"
    assert kinds[1] == "write: Timeout " + "x" * 231 + "…"  # 240 characters
    assert kinds[2] == "write: third kind"
    assert len(kinds) == render.FIRST_ERROR_KINDS


@pytest.mark.parametrize(
    ("total", "ops", "expected"),
    [
        (WRITE, {"write": WRITE}, None),
        (READ, {"read": READ}, "2 of 102 operations failed"),  # one op type: no breakdown
    ],
)
def test_failed_operations_without_samples(
    total: OpStats, ops: dict[str, OpStats], expected: str | None
) -> None:
    assert render.failed_operations(summary(total=total, ops=ops), []) == expected


def test_failed_operations_name_the_kinds_of_their_errors() -> None:
    kinds = {ErrorKind.UNAVAILABLE: 1500, ErrorKind.CLIENT_TIMEOUT: 2}
    total = TOTAL.model_copy(update={"errors": 1502, "errors_by_kind": kinds})
    line = render.failed_operations(summary(total=total, ops={"read": total}), [])
    assert line == (
        "1,502 of 2,502 operations failed; by kind: unavailable: 1,500, client_timeout: 2"
    )


def test_the_verify_line() -> None:
    verified = VerifyStats(
        consistency=Consistency.QUORUM, checked=8000, lost=3, errors=1, duration_s=0.44
    )
    assert render.verify_line(summary(verify=verified)) == (
        "verified 8,000 acknowledged writes at QUORUM: 3 lost, 1 unverified (read errors), 0.4 s"
    )
    assert "interrupted" in render.verify_line(summary())
