"""The typed workload spec: the one record that crosses from Python to the Rust engine.

Parsers (cassandra-stress syntax, YCSB property files, experiment files) produce a
:class:`WorkloadSpec`; the engine (``engine/``) reads it as JSON from a file and mirrors
these types with serde. The engine's output records (:class:`IntervalRecord`,
:class:`SummaryRecord`) come back as JSON lines. Both carry ``schema_version``; bump it
on any incompatible change, on both sides.

Determinism: operation *i* of a run is a pure function of ``(seed, i)``: which operation
runs, which key it touches, and every generated value. A write of key *k* stores values
that are a pure function of ``(seed, k, column)``, so a read can validate them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SCHEMA_VERSION: Final[Literal[1]] = 1


class Record(BaseModel):
    """Base of every boundary record: frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


# ---------------------------------------------------------------- distributions


class DistKind(StrEnum):
    """Distributions of keys, sizes and values (cassandra-stress and YCSB names)."""

    FIXED = "fixed"  # always `min` (min == max)
    SEQ = "seq"  # min, min+1, ..., max, min, ... by cycle number (stress `-pop seq=`)
    UNIFORM = "uniform"
    GAUSSIAN = "gaussian"  # mean/stdev default to the stress defaults from min..max
    EXP = "exp"
    ZIPFIAN = "zipfian"  # YCSB scrambled zipfian, constant `zipf_theta`
    LATEST = "latest"  # YCSB: skewed towards the most recently inserted keys
    HOTSPOT = "hotspot"  # YCSB: `hot_fraction` of keys get `hot_ops_fraction` of ops


class Distribution(Record):
    """A distribution over the inclusive integer range ``min..max``."""

    kind: DistKind
    min: int
    max: int
    mean: float | None = None  # gaussian
    stdev: float | None = None  # gaussian
    zipf_theta: float = 0.99  # zipfian, latest
    hot_fraction: float = 0.2  # hotspot: share of the key space that is hot
    hot_ops_fraction: float = 0.8  # hotspot: share of operations that go to it

    @model_validator(mode="after")
    def _range(self) -> Distribution:
        if self.max < self.min:
            raise ValueError(f"{self.kind} distribution: max {self.max} < min {self.min}")
        if not 0.0 < self.zipf_theta < 1.0:
            raise ValueError(f"zipf_theta {self.zipf_theta}: must be between 0 and 1 (e.g. 0.99)")
        return self


# ---------------------------------------------------------------- value generators


class GenKind(StrEnum):
    """What one bind marker receives."""

    KEY_BLOB = "key_blob"  # the key index as a blob of `size` bytes (stress `key` column)
    KEY_TEXT = "key_text"  # `prefix` + key index (hashed if `hashed`), YCSB `y_id`
    KEY_BIGINT = "key_bigint"  # the key index itself
    BLOB = "blob"  # bytes, length from `size`, content from (seed, key, column)
    TEXT = "text"  # printable ASCII, length from `size`, content from (seed, key, column)
    INT = "int"  # 32-bit from `values` (or derived from key when `values` absent)
    BIGINT = "bigint"
    DOUBLE = "double"
    UUID = "uuid"  # v4-shaped, from (seed, key, column)
    TIMESTAMP = "timestamp"  # milliseconds since epoch from `values`
    COUNTER_DELTA = "counter_delta"  # bigint from `values` (default 1)
    SCAN_LENGTH = "scan_length"  # int from `values`, per cycle (YCSB scan `LIMIT ?`)


class Generator(Record):
    """The value for one bind marker of a prepared statement.

    Values derived from the key (``per_key``) are a function of ``(seed, key, column)``;
    otherwise of ``(seed, cycle, column)``.
    """

    kind: GenKind
    column: str = ""  # column name, used to seed the value and in validation messages
    size: Distribution | None = None  # BLOB / TEXT / KEY_BLOB length in bytes
    values: Distribution | None = None  # numeric generators
    prefix: str = ""  # KEY_TEXT
    hashed: bool = False  # KEY_TEXT: YCSB insertorder=hashed
    per_key: bool = True
    # Rows of a partition (an operation with `clustering`): 0 = a function of the partition
    # key; i >= 1 = of the partition key and the row's positions on clustering levels 1..i
    # (clustering column i has level i; regular columns have the deepest level).
    level: int = Field(default=0, ge=0)


# ---------------------------------------------------------------- operations


class Consistency(StrEnum):
    ANY = "ANY"
    ONE = "ONE"
    TWO = "TWO"
    THREE = "THREE"
    QUORUM = "QUORUM"
    ALL = "ALL"
    LOCAL_QUORUM = "LOCAL_QUORUM"
    EACH_QUORUM = "EACH_QUORUM"
    LOCAL_ONE = "LOCAL_ONE"
    SERIAL = "SERIAL"
    LOCAL_SERIAL = "LOCAL_SERIAL"


class OpKind(StrEnum):
    WRITE = "write"  # insert / update; writes mark the key as written
    READ = "read"  # select by key; may validate
    SCAN = "scan"  # range read
    COUNTER_WRITE = "counter_write"
    COUNTER_READ = "counter_read"
    READ_MODIFY_WRITE = "read_modify_write"  # statements[0] reads, statements[1] writes
    CQL = "cql"  # any other statement from a user profile


class Statement(Record):
    """One prepared statement and the generators for its bind markers, in order."""

    cql: str
    binds: list[Generator] = Field(default_factory=list)


class BatchType(StrEnum):
    LOGGED = "logged"
    UNLOGGED = "unlogged"
    COUNTER = "counter"


class InsertBatch(Record):
    """cassandra-stress ``insert:``: each operation writes a batch of rows.

    ``partitions`` partitions per operation (the first is the cycle's key, the others are
    drawn from the key distribution); of each, a fraction ``select / select_divisor`` of
    its rows (at least one). More than 65535 rows are sent as consecutive batches.
    """

    partitions: Distribution
    select: Distribution
    select_divisor: float = Field(default=1.0, gt=0)
    batch_type: BatchType = BatchType.LOGGED

    @model_validator(mode="after")
    def _counts(self) -> InsertBatch:
        if self.partitions.min < 1 or self.select.min < 0:
            raise ValueError(
                f"batch: partitions must be >= 1 (got {self.partitions.min}..{self.partitions.max})"
                f" and select >= 0 (got {self.select.min}..{self.select.max})"
            )
        return self


class Operation(Record):
    """A named operation type, chosen per cycle with probability weight/sum(weights).

    ``clustering`` gives each partition rows, cassandra-stress style: level *i* of the
    clustering key has ``clustering[i]`` values in a partition (drawn once per partition),
    so a partition has their product in rows. A single-row operation picks one row per
    cycle; ``batch`` writes several.
    """

    name: str  # reported name: "write", "read", "insert", "simple1", "UPDATE", ...
    kind: OpKind
    weight: float = Field(gt=0)
    statements: list[Statement] = Field(min_length=1)
    consistency: Consistency = Consistency.LOCAL_ONE
    serial_consistency: Consistency | None = None
    keys: Distribution | None = None  # overrides WorkloadSpec.keys for this operation
    validate_columns: list[Generator] = Field(default_factory=list)  # READ: expected row
    idempotent: bool = True
    clustering: list[Distribution] = Field(default_factory=list)
    batch: InsertBatch | None = None

    @model_validator(mode="after")
    def _rows(self) -> Operation:
        depth = len(self.clustering)
        for statement in self.statements:
            for bind in statement.binds:
                if bind.level > depth:
                    raise ValueError(
                        f"operation {self.name!r}: column {bind.column!r} has level {bind.level}"
                        f" but the partition has {depth} clustering level(s)"
                    )
        if any(d.min < 1 for d in self.clustering):
            raise ValueError(f"operation {self.name!r}: clustering counts must be >= 1")
        if self.batch is not None and (
            self.kind not in (OpKind.WRITE, OpKind.COUNTER_WRITE) or len(self.statements) != 1
        ):
            raise ValueError(
                f"operation {self.name!r}: batch needs a write with exactly one statement"
            )
        return self


# ---------------------------------------------------------------- load shape


class ClosedLoop(Record):
    """``threads`` requests in flight; each starts when the previous one ends."""

    mode: Literal["closed"] = "closed"
    threads: int = Field(ge=1)


class OpenLoop(Record):
    """Operations are due at a fixed rate; latency counts from the due time.

    ``max_in_flight`` bounds concurrency; when it is reached, operations wait and their
    queueing delay shows in the response time (never dropped, never hidden).
    """

    mode: Literal["open"] = "open"
    rate_per_s: float = Field(gt=0)
    max_in_flight: int = Field(default=1024, ge=1)


class ThreadRamp(Record):
    """cassandra-stress ``threads>=A threads<=B`` / auto: closed loop, concurrency stepped up.

    Each step runs ``step_duration_s``; the ramp stops after ``max`` or when the op rate
    of ``patience`` consecutive steps has not improved by at least ``min_gain_pct``.
    """

    mode: Literal["ramp"] = "ramp"
    min: int = Field(ge=1)
    max: int = Field(ge=1)
    factor: float = Field(default=1.5, gt=1.0)  # next = ceil(current * factor)
    step_duration_s: float = Field(default=10.0, gt=0)
    min_gain_pct: float = 5.0
    patience: int = Field(default=3, ge=1)
    # Explicit concurrency steps (ascending); when given they replace `factor`. The
    # cassandra-stress front end fills in stress's own sequence 4, 8, 16, 24, 36, ... 609.
    steps: list[int] = Field(default_factory=list)

    @model_validator(mode="after")
    def _bounds(self) -> ThreadRamp:
        if self.max < self.min:
            raise ValueError(f"thread ramp: threads<={self.max} is below threads>={self.min}")
        if self.steps != sorted(set(self.steps)) or any(s < 1 for s in self.steps):
            raise ValueError(f"thread ramp steps {self.steps}: must be ascending and >= 1")
        return self


Rate = Annotated[ClosedLoop | OpenLoop | ThreadRamp, Field(discriminator="mode")]


class Stop(Record):
    """When the measured phase ends: after ``ops`` operations or ``duration_s``, first hit."""

    ops: int | None = Field(default=None, ge=1)
    duration_s: float | None = Field(default=None, gt=0)


# ---------------------------------------------------------------- connection


class Connection(Record):
    contact_points: list[str] = Field(min_length=1)  # "host:port"
    local_dc: str | None = None
    username: str | None = None
    password: str | None = None
    tls: bool = False
    tls_ca_file: str | None = None
    request_timeout_s: float = 12.0
    retries: int = 3  # per operation, for idempotent statements
    retry_backoff_ms: float = 50.0


class Output(Record):
    """Where the engine writes. ``jsonl`` of None means standard output."""

    jsonl: str | None = None
    hdr_log: str | None = None
    interval_s: float = Field(default=1.0, gt=0)


class WorkloadSpec(Record):
    """Everything the engine needs for one run."""

    schema_version: Literal[1] = SCHEMA_VERSION
    connection: Connection
    schema_cql: list[str] = Field(default_factory=list)  # run once, in order, before load
    keyspace: str | None = None  # USE keyspace for the session
    operations: list[Operation] = Field(min_length=1)
    keys: Distribution  # key index per cycle (cassandra-stress -pop, YCSB request dist)
    rate: Rate
    stop: Stop
    warmup_s: float = 0.0  # run, then discard, before the measured phase
    seed: int = Field(default=0, ge=0, lt=2**63)
    validate_reads: bool = False
    output: Output = Field(default_factory=Output)

    @model_validator(mode="after")
    def _stops(self) -> WorkloadSpec:
        if (
            not isinstance(self.rate, ThreadRamp)
            and self.stop.ops is None
            and (self.stop.duration_s is None)
        ):
            raise ValueError("stop: give ops (n=) or duration_s (duration=); a run must end")
        return self


# ---------------------------------------------------------------- engine output


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
