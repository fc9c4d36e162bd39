"""Engine records to render, by hand: latencies, operation statistics, an interval and a
summary (the console tests of each front end and of the run's outcome)."""

from __future__ import annotations

from casslab.engine_contract.engine_records import (
    IntervalRecord,
    LatencyStats,
    OpStats,
    SummaryRecord,
)

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
