"""The engine's output records: what comes back from the Rust engine as JSON lines.

The engine (``engine/``) writes one JSON line per record while it runs: an
:class:`IntervalRecord` per interval, :class:`ErrorRecord` samples of failed operations (or
a fatal error) and a final :class:`SummaryRecord`. serde mirrors these types in
``engine/src/spec/records.rs``; like the :class:`~casslab.load.spec.WorkloadSpec` that goes in,
each carries ``schema_version`` (:data:`~casslab.load.spec.SCHEMA_VERSION`, shared by both
directions); bump it on any incompatible change, on both sides.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from casslab.load.spec import SCHEMA_VERSION
from casslab.record import Record


class LatencyStats(Record):
    """Latency of one operation type (or all) over an interval, in milliseconds."""

    count: int
    mean_ms: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float


class OpStats(Record):
    """Counts and both latencies of one operation type over an interval or the run.

    ``count`` counts operations that succeeded (after retries); failed ones count in
    ``errors`` only and are not in the latency figures.

    ``response`` is measured from the intended start (open loop) and includes queueing;
    ``service`` from the actual send. In a closed loop they coincide.
    """

    count: int
    errors: int
    op_rate: float
    rows: int = 0  # rows returned by reads / scans, rows written by writes
    partitions: int = 0  # partitions the successful operations touched
    not_found: int = 0  # reads that found no row
    mismatches: int = 0  # validated reads whose values differ from what was written
    response: LatencyStats
    service: LatencyStats


class IntervalRecord(Record):
    schema_version: Literal[1] = SCHEMA_VERSION
    type: Literal["interval"] = "interval"
    phase: Literal["warmup", "measure", "ramp"] = "measure"
    t_start_s: float  # seconds since engine start
    t_end_s: float
    threads: int  # concurrency in this interval (closed loop / ramp step)
    total: OpStats
    ops: dict[str, OpStats]


class RampStep(Record):
    threads: int
    op_rate: float
    p99_ms: float
    errors: int


class SummaryRecord(Record):
    schema_version: Literal[1] = SCHEMA_VERSION
    type: Literal["summary"] = "summary"
    duration_s: float
    total: OpStats
    ops: dict[str, OpStats]
    ramp: list[RampStep] = Field(default_factory=list)
    best_threads: int | None = None
    engine_version: str


class ErrorRecord(Record):
    """A sample of a failed operation or a fatal engine error (``fatal``)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    type: Literal["error"] = "error"
    op: str | None = None
    message: str
    fatal: bool = False


EngineRecord = Annotated[IntervalRecord | SummaryRecord | ErrorRecord, Field(discriminator="type")]
