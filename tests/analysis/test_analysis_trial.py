"""A trial's KPIs over its steady part, from literal interval records, a hand-written
HdrHistogram log and a small metrics frame.

The literal trial: 10 warm-up intervals, then 100 measured one-second intervals of one
operation (``write``). For the first 20 the op rate ramps up (400, 430, ... 970 ops/s) and
every operation takes ~1.02 ms (HDR bucket 2000); from interval 20 on, 1,000 ops/s at
~0.51 ms (bucket 1000), exactly. So MSER-5 truncates 4 batches: the steady part starts at
interval 20, 20 s into the measured phase. Three operations fail in interval 2, one in
interval 50. The host's CPU is 90% busy during the ramp, 50% after.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import pytest

from casslab.analysis import KpiWindow, TrialKpis, trial_kpis
from casslab.engine_contract.engine_records import (
    IntervalRecord,
    LatencyStats,
    OpStats,
    SummaryRecord,
)
from casslab.engine_contract.hdr import IntervalLog, parse_interval_log
from hdr_literals import log_text

WARMUP, MEASURED, RAMP = 10, 100, 20
ENGINE_START_UNIX = 1_700_000_000.0
MEASURE_START_UNIX = ENGINE_START_UNIX + WARMUP
SLOW, FAST = 2000, 1000  # HDR buckets: values i·512 .. i·512+511 ns
FAST_HIGH_MS = (FAST * 512 + 511) / 1e6  # 0.512511: every percentile of the steady part
FAST_MEDIAN_MS = (FAST * 512 + 256) / 1e6  # the mean as the crate computes it


def _count(i: int) -> int:
    return 400 + 30 * i if i < RAMP else 1000


def _bucket(i: int) -> int:
    return SLOW if i < RAMP else FAST


def _errors(i: int) -> int:
    return {2: 3, 50: 1}.get(i, 0)


def _latency(count: int, bucket: int) -> LatencyStats:
    high = (bucket * 512 + 511) / 1e6
    return LatencyStats(
        count=count,
        mean_ms=(bucket * 512 + 256) / 1e6,
        p50_ms=high,
        p95_ms=high,
        p99_ms=high,
        p999_ms=high,
        max_ms=high,
    )


def _op(count: int, errors: int, seconds: float, bucket: int) -> OpStats:
    latency = _latency(count, bucket)
    return OpStats(
        count=count, errors=errors, op_rate=count / seconds, response=latency, service=latency
    )


def intervals() -> list[IntervalRecord]:
    out = [
        IntervalRecord(
            phase="warmup",
            t_start_s=float(i),
            t_end_s=float(i + 1),
            threads=8,
            total=_op(100, 0, 1.0, SLOW),
            ops={"write": _op(100, 0, 1.0, SLOW)},
        )
        for i in range(WARMUP)
    ]
    for i in range(MEASURED):
        op = _op(_count(i), _errors(i), 1.0, _bucket(i))
        start = float(WARMUP + i)
        out.append(
            IntervalRecord(
                t_start_s=start, t_end_s=start + 1.0, threads=8, total=op, ops={"write": op}
            )
        )
    return out


def hlog(skip: int | None = None) -> str:
    """The engine's log of the measured intervals (``skip``: leave one interval's lines out)."""
    lines = []
    for i in range(MEASURED):
        if i == skip:
            continue
        entries = {_bucket(i): _count(i)}
        lines.append(("write", float(WARMUP + i), 1.0, entries))
        lines.append(("write.service", float(WARMUP + i), 1.0, entries))
    return log_text(lines)


WHOLE_COUNT = sum(_count(i) for i in range(MEASURED))
# the engine summary of the whole measured phase (percentiles as the engine would give them)
SUMMARY_LATENCY = LatencyStats(
    count=WHOLE_COUNT,
    mean_ms=0.6,
    p50_ms=FAST_HIGH_MS,
    p95_ms=1.024511,
    p99_ms=1.024511,
    p999_ms=1.024511,
    max_ms=1.024511,
)
SUMMARY_OP = OpStats(
    count=WHOLE_COUNT,
    errors=4,
    op_rate=WHOLE_COUNT / MEASURED,
    response=SUMMARY_LATENCY,
    service=SUMMARY_LATENCY,
)
SUMMARY = SummaryRecord(
    duration_s=float(MEASURED), total=SUMMARY_OP, ops={"write": SUMMARY_OP}, engine_version="0.1.0"
)


def metrics() -> pd.DataFrame:
    times = [MEASURE_START_UNIX + s + 0.5 for s in range(MEASURED)]
    return pd.DataFrame(
        {
            "time": times,
            "node": ["127.0.0.1"] * MEASURED,
            "metric": ["host.cpu_busy_pct"] * MEASURED,
            "value": [90.0 if s < RAMP else 50.0 for s in range(MEASURED)],
        }
    )


def kpis(
    *,
    summary: SummaryRecord | None = SUMMARY,
    measured: Sequence[IntervalRecord] | None = None,
    log: str | IntervalLog | None = None,
) -> TrialKpis:
    return trial_kpis(
        trial_id="c/1",
        cell_id="c",
        iteration=1,
        factors={"f": "a"},
        summary=summary,
        intervals=intervals() if measured is None else measured,
        metrics=metrics(),
        start=MEASURE_START_UNIX,
        end=MEASURE_START_UNIX + MEASURED,
        hlog=log,
    )


def test_kpis_cover_the_steady_part_with_exact_percentiles_from_the_log() -> None:
    result = trial_kpis(
        trial_id="c/1",
        cell_id="c",
        iteration=1,
        factors={"f": "a"},
        summary=SUMMARY,
        intervals=intervals(),
        metrics=metrics(),
        start=MEASURE_START_UNIX,
        end=MEASURE_START_UNIX + MEASURED,
        hlog=hlog(),
    )

    steady = result.steady
    assert steady is not None
    assert (steady.steady, steady.start_index, steady.start_s) == (True, RAMP, float(RAMP))
    assert steady.truncations == {"op_rate": RAMP, "latency_mean_ms": RAMP}
    assert result.engine_window is KpiWindow.STEADY
    assert result.window_note is None
    k = result.kpis
    assert k["op_rate"] == pytest.approx(1000.0)
    assert k["write.op_rate"] == pytest.approx(1000.0)
    for name in ("latency_p50_ms", "latency_p99_ms", "latency_p999_ms", "latency_max_ms"):
        assert k[name] == FAST_HIGH_MS
        assert k[f"write.{name}"] == FAST_HIGH_MS
    assert k["latency_mean_ms"] == pytest.approx(FAST_MEDIAN_MS)
    assert k["errors"] == 4.0  # the whole measured phase: failures are never truncated away
    assert k["write.errors"] == 4.0
    assert k["cpu_busy_pct"] == pytest.approx(50.0)  # the metrics window starts at 20 s


def test_a_parsed_log_does_as_well_as_its_text() -> None:
    text = kpis(log=hlog())
    parsed = kpis(log=parse_interval_log(hlog()))

    assert text == parsed


def test_without_the_log_the_engine_kpis_are_the_summarys() -> None:
    result = kpis()

    assert result.engine_window is KpiWindow.MEASURE
    assert "no HdrHistogram log" in (result.window_note or "")
    k = result.kpis
    assert k["latency_p99_ms"] == 1.024511
    assert k["op_rate"] == pytest.approx(WHOLE_COUNT / MEASURED)
    assert k["cpu_busy_pct"] == pytest.approx(50.0)  # the metrics still cover the steady part


def test_without_log_or_summary_the_intervals_of_the_steady_part_give_what_they_can() -> None:
    result = kpis(summary=None)

    assert result.engine_window is KpiWindow.STEADY
    k = result.kpis
    assert k["op_rate"] == pytest.approx(1000.0)
    assert k["latency_p99_ms"] is None  # percentiles do not merge from intervals
    assert k["latency_mean_ms"] == pytest.approx(FAST_MEDIAN_MS)
    assert k["errors"] == 4.0


def test_a_log_missing_a_line_of_the_steady_part_falls_back_to_the_summary() -> None:
    result = kpis(log=hlog(skip=60))

    assert result.engine_window is KpiWindow.MEASURE
    note = result.window_note or ""
    assert "holds 79000 of its 80000 operations" in note
    assert result.kpis["latency_p99_ms"] == 1.024511


def test_without_intervals_nothing_is_judged_and_the_kpis_are_as_before() -> None:
    result = kpis(measured=(), log=hlog())

    assert result.steady is None
    assert result.engine_window is KpiWindow.MEASURE
    assert result.kpis["latency_p99_ms"] == 1.024511
    assert result.kpis["cpu_busy_pct"] == pytest.approx(58.0)


def test_a_trial_too_short_to_judge_keeps_its_whole_phase() -> None:
    short = [i for i in intervals() if i.t_start_s < WARMUP + 40]  # 40 measured: 8 batches

    result = kpis(measured=short, log=hlog())

    steady = result.steady
    assert steady is not None
    assert not steady.steady
    assert (steady.reason or "").startswith("too short to judge: 40 measured intervals")
    assert result.engine_window is KpiWindow.MEASURE
    assert result.kpis["latency_p99_ms"] == 1.024511
    assert result.kpis["cpu_busy_pct"] == pytest.approx(58.0)
