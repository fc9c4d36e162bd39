"""The engine's output records: what comes back from the Rust engine as JSON lines.

The engine (``engine/``) writes one JSON line per record while it runs: an
:class:`IntervalRecord` per interval, :class:`ErrorRecord` samples of failed operations (or
a fatal error) and a final :class:`SummaryRecord`. serde mirrors these types in
``engine/src/spec/records.rs``; like the
:class:`~casslab.engine_contract.workload_spec.WorkloadSpec` that goes in, each carries
``schema_version`` (:data:`~casslab.engine_contract.workload_spec.SCHEMA_VERSION`, shared by both
directions); bump it on any incompatible change, on both sides.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from casslab.engine_contract.workload_spec import SCHEMA_VERSION, Consistency
from casslab.record import Record


class ErrorKind(StrEnum):
    """What made an operation fail: the kind of its final error (after retries), in
    Cassandra's terms. The engine classifies (``engine/src/runner/classify.rs``); the kinds
    are described once, on ``ErrorKind`` in ``engine/src/spec/records.rs``."""

    UNAVAILABLE = "unavailable"  # too few replicas alive for the consistency level
    WRITE_TIMEOUT = "write_timeout"  # too few replicas acknowledged a write in time
    READ_TIMEOUT = "read_timeout"  # too few replicas answered a read in time
    WRITE_FAILURE = "write_failure"  # replicas answered a write with a failure
    READ_FAILURE = "read_failure"  # replicas answered a read with a failure
    OVERLOADED = "overloaded"  # the coordinator shed the request
    CLIENT_TIMEOUT = "client_timeout"  # no answer within connection.request_timeout_s
    CONNECTION = "connection"  # broken connection, pool error, no stream id, no node
    OTHER = "other"  # everything else (invalid request, server error, decoding, ...)


TIMEOUT_KINDS = frozenset(
    {ErrorKind.WRITE_TIMEOUT, ErrorKind.READ_TIMEOUT, ErrorKind.CLIENT_TIMEOUT}
)


class LatencyStats(Record):
    """Latency of one operation type (or all) over an interval, in milliseconds."""

    count: int
    mean_ms: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float


class RecallStats(Record):
    """Recall@k of ANN queries: per query, the share of its k true nearest neighbours the
    search returned. ``queries_by_hits[h]`` counts the queries that found ``h`` of them
    (exact and summable); ``p5``/``p1``: the recall 5 % / 1 % of queries were at or below
    (nearest rank)."""

    k: int
    queries: int
    mean: float
    p5: float
    p1: float
    queries_by_hits: list[int]


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
    # lightweight transactions (conditional operations): [applied] true / false; they
    # sum to count
    applied: int = 0
    not_applied: int = 0
    # errors by kind of the final error; kinds with a count only, they sum to errors
    errors_by_kind: dict[ErrorKind, int] = Field(default_factory=dict)
    response: LatencyStats
    service: LatencyStats
    recall: RecallStats | None = None  # ANN searches (recall_k) only
    # search while loading: ANN queries that could not be judged against the rows inserted
    # so far (the ground truth's depth ran out first); not counted in recall
    recall_unjudged: int = 0


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


class VerifyStats(Record):
    """The read-back of acknowledged writes after the measured phase (spec ``verify``).

    ``checked`` distinct keys that ``write`` operations wrote and the cluster acknowledged
    were read at ``consistency``: ``lost`` returned no row (acknowledged writes lost),
    ``errors`` failed after retries (unverified, not lost), the rest were found.
    """

    consistency: Consistency
    checked: int
    lost: int
    errors: int
    duration_s: float


class SummaryRecord(Record):
    schema_version: Literal[1] = SCHEMA_VERSION
    type: Literal["summary"] = "summary"
    duration_s: float
    total: OpStats
    ops: dict[str, OpStats]
    ramp: list[RampStep] = Field(default_factory=list)
    best_threads: int | None = None
    engine_version: str
    # the read-back of acknowledged writes (spec verify); None when not asked or when an
    # interruption skipped it
    verify: VerifyStats | None = None


class ErrorRecord(Record):
    """A sample of a failed operation or a fatal engine error (``fatal``)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    type: Literal["error"] = "error"
    op: str | None = None
    message: str
    fatal: bool = False


EngineRecord = Annotated[IntervalRecord | SummaryRecord | ErrorRecord, Field(discriminator="type")]
