"""Was the engine the bottleneck: literal CPU use and summaries (no engine run)."""

from __future__ import annotations

import os

from casslab.engine_contract.engine_records import (
    IntervalRecord,
    LatencyStats,
    OpStats,
    SummaryRecord,
)
from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    DistKind,
    Distribution,
    OpenLoop,
    Operation,
    OpKind,
    Rate,
    Statement,
    Stop,
    WorkloadSpec,
)
from casslab.load.client_bound import EngineMeter, EngineUse, engine_warning


def workload(rate: Rate, stop: Stop) -> WorkloadSpec:
    return WorkloadSpec(
        connection=Connection(contact_points=["127.0.0.1:9042"]),
        keyspace="ks",
        operations=[
            Operation(
                name="write",
                kind=OpKind.WRITE,
                weight=1,
                statements=[Statement(cql="INSERT INTO t (k) VALUES (?)")],
            )
        ],
        keys=Distribution(kind=DistKind.UNIFORM, min=1, max=1000),
        rate=rate,
        stop=stop,
    )


def summary(op_rate: float, service_mean_ms: float) -> SummaryRecord:
    lat = LatencyStats(
        count=1000, mean_ms=service_mean_ms, p50_ms=1, p95_ms=2, p99_ms=3, p999_ms=4, max_ms=9
    )
    total = OpStats(count=1000, errors=0, op_rate=op_rate, response=lat, service=lat)
    return SummaryRecord(duration_s=10.0, total=total, ops={}, engine_version="test")


def test_an_engine_at_its_cpu_share_is_warned_of() -> None:
    closed = workload(ClosedLoop(threads=64), Stop(duration_s=10))
    # 0.95 s of CPU in 10 s: 9.5% of one core, 95% of a 0.1-CPU share
    warning = engine_warning(EngineUse(cpu_s=0.95, wall_s=10.0, cores=0.1), closed, summary(900, 2))
    assert warning is not None
    assert "the load engine was the bottleneck" in warning
    assert "95% of the 0.1 cores it may use" in warning
    # the same CPU with two cores to use: no warning
    assert engine_warning(EngineUse(cpu_s=0.95, wall_s=10.0, cores=2), closed, summary(900, 2)) is (
        None
    )


def test_an_open_loop_at_its_in_flight_limit_is_warned_of() -> None:
    # 1000 ops/s x 30 ms = 30 in flight of 32 allowed, the target 5000 ops/s
    open_loop = workload(OpenLoop(rate_per_s=5000, max_in_flight=32), Stop(duration_s=10))
    use = EngineUse(cpu_s=1.0, wall_s=10.0, cores=2)
    warning = engine_warning(use, open_loop, summary(1000, 30))
    assert warning is not None
    assert "in-flight limit" in warning
    assert engine_warning(use, open_loop, summary(4990, 30)) is None  # it kept up


def _interval(phase: str) -> IntervalRecord:
    lat = LatencyStats(count=0, mean_ms=0, p50_ms=0, p95_ms=0, p99_ms=0, p999_ms=0, max_ms=0)
    total = OpStats(count=0, errors=0, op_rate=0.0, response=lat, service=lat)
    return IntervalRecord(phase=phase, t_start_s=0, t_end_s=1, threads=1, total=total, ops={})


def test_the_meter_reads_a_process_over_its_measured_intervals_only() -> None:
    meter = EngineMeter("0")  # --engine-cpus 0: one CPU
    assert meter.cores <= 1
    meter.interval(_interval("measure"))  # no process yet: nothing read
    meter.started(os.getpid())  # this test's process stands in for the engine
    meter.interval(_interval("warmup"))
    assert meter.use() is None
    meter.interval(_interval("measure"))
    sum(i * i for i in range(500_000))  # CPU between the two readings
    meter.interval(_interval("measure"))
    use = meter.use()
    assert use is not None
    assert use.cpu_s > 0
    assert use.wall_s > 0
    assert engine_warning(None, workload(ClosedLoop(threads=1), Stop(ops=1)), summary(1, 1)) is None
