"""The typed workload spec: the one record that crosses from Python to the Rust engine.

Parsers (cassandra-stress syntax, YCSB property files, experiment files) produce a
:class:`WorkloadSpec`; the engine (``engine/``) reads it as JSON from a file and mirrors
these types with serde. The engine's output records come back as JSON lines
(:mod:`casslab.engine_contract.engine_records`). Both carry ``schema_version``; bump it on any
incompatible change, on both sides.

The rules a spec must satisfy are written here (validators) and in ``engine/src/spec/check.rs``,
with the same messages. The fixtures in ``engine/contract/`` (specs both sides accept, and
specs both reject with a shared reason) are run by both test suites, so the two cannot
drift: a new rule lands on both sides with a fixture.

Determinism, with two seeds. ``seed`` draws the operation sequence: operation *i* of a run
is a pure function of ``(seed, i)`` (which operation runs, which key it touches, which row
of a partition it reads, how many partitions and which rows a batch picks, a scan's
length). ``data_seed`` draws the data: every value written or validated is a pure function
of ``(data_seed, key, column)`` (per key, with the row in a partition) or ``(data_seed,
cycle, column)`` (per cycle), and so are the shape and row ids of each partition. Nothing
that is data depends on ``seed``: a read validates what a write stored when both ran with
the same ``data_seed``, whatever their ``seed`` (a measured phase after a preload).
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Final, Literal

from pydantic import Field, model_validator

from casslab.record import Record

SCHEMA_VERSION: Final[Literal[1]] = 1


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
            raise ValueError(
                f"{self.kind} distribution {self.min}..{self.max}: max is below min;"
                " write it as min..max"
            )
        if not 0.0 < self.zipf_theta < 1.0:
            raise ValueError(
                f"zipf_theta must be between 0 and 1, exclusive (got {self.zipf_theta});"
                " YCSB uses 0.99"
            )
        if not (0.0 <= self.hot_fraction <= 1.0 and 0.0 <= self.hot_ops_fraction <= 1.0):
            raise ValueError(
                "hot_fraction and hot_ops_fraction must be between 0 and 1"
                f" (got {self.hot_fraction}, {self.hot_ops_fraction})"
            )
        return self


# ---------------------------------------------------------------- value generators


class GenKind(StrEnum):
    """What one bind marker receives."""

    KEY_BLOB = "key_blob"  # the key index as a blob of `size` bytes (stress `key` column)
    KEY_TEXT = "key_text"  # `prefix` + key index (hashed if `hashed`), YCSB `y_id`
    KEY_BIGINT = "key_bigint"  # the key index itself
    BLOB = "blob"  # bytes, length from `size`, content from (data_seed, key, column)
    TEXT = "text"  # printable ASCII, length from `size`, content from (data_seed, key, column)
    INT = "int"  # 32-bit from `values` (or derived from key when `values` absent)
    BIGINT = "bigint"
    DOUBLE = "double"
    UUID = "uuid"  # v4-shaped, from (data_seed, key, column)
    TIMESTAMP = "timestamp"  # milliseconds since epoch from `values`
    COUNTER_DELTA = "counter_delta"  # bigint from `values` (default 1)
    # int from `values`, per cycle (YCSB scan `LIMIT ?`): a part of the operation, so drawn
    # from `seed`, not `data_seed`
    SCAN_LENGTH = "scan_length"
    # The other CQL types (engine/src/gen/typed.rs): numbers start from `values` (or the
    # key; inside a collection, the hash), the rest from (data_seed, key, column).
    BOOLEAN = "boolean"
    TINYINT = "tinyint"
    SMALLINT = "smallint"
    VARINT = "varint"
    FLOAT = "float"
    DECIMAL = "decimal"  # two digits after the point
    DATE = "date"  # `values`: days since 1970-01-01
    TIME = "time"  # `values`: nanoseconds since midnight
    DURATION = "duration"
    TIMEUUID = "timeuuid"  # version 1; `values`: its time in ms since the epoch
    INET = "inet"  # IPv4; `values`: the address as a number
    # Collections (length from `size`), tuples and UDTs: their elements from `items`.
    LIST = "list"
    SET = "set"
    MAP = "map"
    TUPLE = "tuple"
    UDT = "udt"
    VECTOR = "vector"  # dimension: a fixed `size`
    # vector<float, n> from the spec's `vectors` files: base row key - key_offset (a
    # write), query row cycle mod queries (an ANN search)
    BASE_VECTOR = "base_vector"
    QUERY_VECTOR = "query_vector"


# How many item generators each kind takes: (at least, at most), and the rule's words.
_ITEMS: dict[GenKind, tuple[int, int, str]] = {
    GenKind.LIST: (1, 1, "a list, set or vector takes one item generator (its element)"),
    GenKind.SET: (1, 1, "a list, set or vector takes one item generator (its element)"),
    GenKind.VECTOR: (1, 1, "a list, set or vector takes one item generator (its element)"),
    GenKind.MAP: (2, 2, "a map takes two item generators (its key and its value)"),
    GenKind.TUPLE: (1, 2**31, "a tuple or udt takes one item generator per component"),
    GenKind.UDT: (1, 2**31, "a tuple or udt takes one item generator per component"),
}
_NO_ITEMS = (0, 0, "only list, set, map, tuple, udt and vector take item generators")


class UdtName(Record):
    """A user-defined type's keyspace and name, as Cassandra stores them."""

    keyspace: str
    name: str


class Generator(Record):
    """The value for one bind marker of a prepared statement.

    Values derived from the key (``per_key``) are a function of ``(data_seed, key,
    column)``; otherwise of ``(data_seed, cycle, column)``. ``scan_length`` alone is drawn
    from ``seed`` (it is a part of the operation, not data).
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
    # A collection's element (list, set, vector), key and value (map), a tuple's
    # components or a UDT's fields (`column` = the field name), in order.
    items: list[Generator] = Field(default_factory=list)
    udt: UdtName | None = None  # UDT: the type's keyspace and name

    @model_validator(mode="after")
    def _sizes(self) -> Generator:
        if self.size is not None and self.size.min < 0:
            raise ValueError(
                f"column {self.column!r}: size must be >= 0 bytes"
                f" (got {self.size.min}..{self.size.max})"
            )
        least, most, rule = _ITEMS.get(self.kind, _NO_ITEMS)
        if not least <= len(self.items) <= most:
            raise ValueError(f"column {self.column!r}: {rule} (got {len(self.items)})")
        if self.kind is GenKind.UDT and self.udt is None:
            raise ValueError(
                f"column {self.column!r}: a udt needs udt (the type's keyspace and name)"
            )
        if self.kind is GenKind.VECTOR and (
            self.size is None or self.size.min != self.size.max or self.size.min < 1
        ):
            raise ValueError(
                f"column {self.column!r}: a vector needs a fixed size >= 1 (its dimension)"
            )
        return self


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
    # cassandra-stress token_range_queries: each operation pages through one piece of the
    # token ring (statements[0] binds the piece's two bounds: token(pk) > ? AND <= ?)
    TOKEN_RANGE = "token_range"


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
    select_divisor: float = 1.0
    batch_type: BatchType = BatchType.LOGGED

    @model_validator(mode="after")
    def _counts(self) -> InsertBatch:
        if self.partitions.min < 1 or self.select.min < 0:
            raise ValueError(
                "batch partitions must be >= 1 and select >= 0 (got partitions"
                f" {self.partitions.min}..{self.partitions.max},"
                f" select {self.select.min}..{self.select.max})"
            )
        if not self.select_divisor > 0:
            raise ValueError(f"batch select_divisor must be > 0 (got {self.select_divisor})")
        return self


class TokenRangeScan(Record):
    """How a ``token_range`` operation walks the ring: the ring's ranges (as the nodes own
    them) each cut into ``split_factor`` pieces, handed out in ring order, one a
    operation, read in pages of ``page_size`` rows. Without ``wrap`` the phase ends when
    every piece was read; with it the walk starts over."""

    page_size: int = 5000
    split_factor: int = 1
    wrap: bool = False

    @model_validator(mode="after")
    def _sizes(self) -> TokenRangeScan:
        if self.page_size < 1 or self.split_factor < 1:
            raise ValueError(
                "token_range page_size and split_factor must be >= 1"
                f" (got {self.page_size} and {self.split_factor})"
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
    weight: float
    statements: list[Statement]
    consistency: Consistency = Consistency.LOCAL_ONE
    serial_consistency: Consistency | None = None
    keys: Distribution | None = None  # overrides WorkloadSpec.keys for this operation
    validate_columns: list[Generator] = Field(default_factory=list)  # READ: expected row
    idempotent: bool = True
    clustering: list[Distribution] = Field(default_factory=list)
    batch: InsertBatch | None = None
    # A lightweight transaction: the last statement has an IF clause; its ``[applied]``
    # column is counted (OpStats applied / not_applied).
    conditional: bool = False
    # cassandra-stress's read-first LWT: statements[0] reads the row's current values, one
    # column per entry, bound in order at these positions of statements[1] in place of
    # the generated values (a row not found binds nulls).
    condition_binds: list[int] = Field(default_factory=list)
    # An ANN search (ORDER BY v ANN OF ? LIMIT k, a query_vector bind): recall@k of the
    # keys in the result's first column against the ground truth of the spec's vectors.
    recall_k: int | None = None
    token_range: TokenRangeScan | None = None  # kind token_range: how it walks the ring

    @model_validator(mode="after")
    def _rows(self) -> Operation:
        if not self.weight > 0:
            raise ValueError(f"operation {self.name!r}: weight must be > 0 (got {self.weight})")
        if not self.statements:
            raise ValueError(
                f"operation {self.name!r}: statements is empty; give at least one statement"
            )
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
        if self.kind is OpKind.READ_MODIFY_WRITE and len(self.statements) != 2:
            raise ValueError(
                f"operation {self.name!r}: read_modify_write needs exactly 2 statements"
                f" (a read, then a write), got {len(self.statements)}"
            )
        if self.condition_binds:
            self._check_condition_binds()
        self._check_token_range()
        if any(g.kind is GenKind.SCAN_LENGTH for g in self.validate_columns):
            raise ValueError(
                f"operation {self.name!r}: validate_columns cannot hold scan_length"
                " (it is a LIMIT, not a column); remove it"
            )
        return self

    def _check_token_range(self) -> None:
        if (self.kind is OpKind.TOKEN_RANGE) != (self.token_range is not None):
            raise ValueError(
                f"operation {self.name!r}: token_range settings go with kind token_range"
                " (both or neither)"
            )
        if self.token_range is not None and (
            len(self.statements) != 1 or self.statements[0].binds or self.batch is not None
        ):
            raise ValueError(
                f"operation {self.name!r}: a token_range operation has one statement and no"
                " binds or batch (the engine binds the range's two bounds)"
            )

    def _check_condition_binds(self) -> None:
        if not self.conditional or len(self.statements) != 2:
            raise ValueError(
                f"operation {self.name!r}: condition_binds needs a conditional operation of 2"
                f" statements (the read, then the conditional one), got conditional="
                f"{self.conditional} and {len(self.statements)} statement(s)"
            )
        binds = len(self.statements[1].binds)
        past = [p for p in self.condition_binds if not 0 <= p < binds]
        if past:
            raise ValueError(
                f"operation {self.name!r}: condition_binds position {past[0]} is outside"
                f" the conditional statement's {binds} binds"
            )
        if len(set(self.condition_binds)) != len(self.condition_binds):
            raise ValueError(
                f"operation {self.name!r}: condition_binds repeats a position"
                f" ({self.condition_binds}); each read value fills one bind"
            )


# ---------------------------------------------------------------- load shape


class ClosedLoop(Record):
    """``threads`` requests in flight; each starts when the previous one ends."""

    mode: Literal["closed"] = "closed"
    threads: int

    @model_validator(mode="after")
    def _threads(self) -> ClosedLoop:
        if self.threads < 1:
            raise ValueError(f"rate.threads must be >= 1 (got {self.threads})")
        return self


class OpenLoop(Record):
    """Operations are due at a fixed rate; latency counts from the due time.

    ``max_in_flight`` bounds concurrency; when it is reached, operations wait and their
    queueing delay shows in the response time (never dropped, never hidden).
    """

    mode: Literal["open"] = "open"
    rate_per_s: float
    max_in_flight: int = 1024

    @model_validator(mode="after")
    def _rate(self) -> OpenLoop:
        if not self.rate_per_s > 0:
            raise ValueError(f"rate.rate_per_s must be > 0 (got {self.rate_per_s})")
        if self.max_in_flight < 1:
            raise ValueError(f"rate.max_in_flight must be >= 1 (got {self.max_in_flight})")
        return self


class ThreadRamp(Record):
    """cassandra-stress ``threads>=A threads<=B`` / auto: closed loop, concurrency stepped up.

    Each step runs ``step_duration_s``; the ramp stops after ``max`` or when the op rate
    of ``patience`` consecutive steps has not improved by at least ``min_gain_pct``.
    """

    mode: Literal["ramp"] = "ramp"
    min: int
    max: int
    factor: float = 1.5  # next = ceil(current * factor)
    step_duration_s: float = 10.0
    min_gain_pct: float = 5.0
    patience: int = 3
    # Explicit concurrency steps (ascending); when given they replace `factor`. The
    # cassandra-stress front end fills in stress's own sequence 4, 8, 16, 24, 36, ... 609.
    steps: list[int] = Field(default_factory=list)

    @model_validator(mode="after")
    def _bounds(self) -> ThreadRamp:
        if not 1 <= self.min <= self.max:
            raise ValueError(
                f"rate: ramp needs 1 <= min <= max (got min={self.min} max={self.max});"
                " in stress syntax threads>=MIN threads<=MAX"
            )
        if not self.factor > 1:
            raise ValueError(f"rate.factor must be > 1 (got {self.factor})")
        if not self.step_duration_s > 0:
            raise ValueError(f"rate.step_duration_s must be > 0 (got {self.step_duration_s})")
        if self.patience < 1:
            raise ValueError(f"rate.patience must be >= 1 (got {self.patience})")
        if self.steps != sorted(set(self.steps)) or any(s < 1 for s in self.steps):
            raise ValueError(
                f"rate.steps must be ascending and >= 1 (got {self.steps}); each step is a"
                " thread count above the one before"
            )
        return self


Rate = Annotated[ClosedLoop | OpenLoop | ThreadRamp, Field(discriminator="mode")]


class Stop(Record):
    """When the measured phase ends: after ``ops`` operations or ``duration_s``, first hit."""

    ops: int | None = None
    duration_s: float | None = None

    @model_validator(mode="after")
    def _positive(self) -> Stop:
        if self.ops is not None and self.ops < 1:
            raise ValueError(f"stop.ops must be >= 1 (got {self.ops}); leave it out for no limit")
        if self.duration_s is not None and not self.duration_s > 0:
            raise ValueError(
                f"stop.duration_s must be > 0 (got {self.duration_s}); leave it out for no limit"
            )
        return self


# ---------------------------------------------------------------- connection


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Connection(Record):
    """How the engine reaches the cluster.

    ``password`` is for in-memory use only: what is written to disk or given to the engine
    names an environment variable instead (``password_env``; see
    :mod:`casslab.load.credentials`). A ``username`` needs one of the two.
    """

    contact_points: list[str]  # "host:port"
    local_dc: str | None = None
    username: str | None = None
    password: str | None = None
    password_env: str | None = None  # the engine reads the password from this variable
    tls: bool = False
    tls_ca_file: str | None = None
    request_timeout_s: float = 12.0
    retries: int = 3  # per operation, for idempotent statements
    retry_backoff_ms: float = 50.0

    @model_validator(mode="after")
    def _credentials(self) -> Connection:
        if not self.contact_points:
            raise ValueError("connection.contact_points is empty; give at least one host:port")
        if self.password is not None and self.password_env is not None:
            raise ValueError("connection: give password or password_env, not both")
        if self.password_env is not None and not ENV_NAME.fullmatch(self.password_env):
            raise ValueError(
                f"connection.password_env {self.password_env!r}: not an environment variable "
                "name; use letters, digits and _ (e.g. CASSANDRA_PASSWORD)"
            )
        if (self.username is None) != (self.password is None and self.password_env is None):
            raise ValueError(
                "connection: give both username and password (or password_env), or neither"
            )
        if not self.request_timeout_s > 0:
            raise ValueError(
                f"connection.request_timeout_s must be > 0 (got {self.request_timeout_s})"
            )
        if not 0 <= self.retries < 2**32:
            raise ValueError(f"connection.retries must be >= 0 and < 2**32 (got {self.retries})")
        if not self.retry_backoff_ms >= 0:
            raise ValueError(
                f"connection.retry_backoff_ms must be >= 0 (got {self.retry_backoff_ms})"
            )
        return self


class Output(Record):
    """Where the engine writes. ``jsonl`` of None means standard output."""

    jsonl: str | None = None
    hdr_log: str | None = None
    interval_s: float = 1.0

    @model_validator(mode="after")
    def _interval(self) -> Output:
        if not self.interval_s > 0:
            raise ValueError(f"output.interval_s must be > 0 (got {self.interval_s})")
        return self


class Verify(Record):
    """After the measured phase, read back every key an acknowledged ``write`` operation
    wrote: ``statement`` (a SELECT whose binds are functions of the key alone) at
    ``consistency``; a key whose read returns no row is a lost acknowledged write
    (:class:`casslab.engine_contract.engine_records.VerifyStats`; built by
    :mod:`casslab.load.verify`)."""

    consistency: Consistency
    statement: Statement

    @model_validator(mode="after")
    def _key_binds(self) -> Verify:
        for g in self.statement.binds:
            if not g.per_key or g.level != 0 or g.kind is GenKind.SCAN_LENGTH:
                raise ValueError(
                    f"verify: bind {g.column!r} is not a function of the key alone (per_key,"
                    " level 0); the read-back of a key can only bind the key's own values"
                )
        return self


class VectorFiles(Record):
    """The vector dataset of an ANN workload, as TEXMEX files the engine memory-maps:
    base and query vectors (``.fvecs``) and the ground truth (``.ivecs``: each query's
    nearest base rows, nearest first). Base row ``i`` is written as key ``i + key_offset``."""

    base: str
    queries: str
    ground_truth: str
    dimension: int = Field(ge=1)
    key_offset: int = 1
    # search while loading: the table holds base rows [0, n) before the run (0: none); the
    # run's acknowledged base-vector writes add to them and recall@k is counted against
    # the ground truth restricted to the rows held. None: the full ground truth.
    preloaded_rows: int | None = Field(default=None, ge=0)


def _check_vectors(spec: WorkloadSpec) -> None:
    """Dataset binds and recall need ``vectors``; recall needs a query to count against."""
    for op in spec.operations:
        kinds = {g.kind for s in op.statements for g in s.binds}
        uses = bool(kinds & {GenKind.BASE_VECTOR, GenKind.QUERY_VECTOR})
        if (uses or op.recall_k is not None) and spec.vectors is None:
            raise ValueError(
                f"operation {op.name!r}: base_vector, query_vector and recall_k need vectors"
                " (the dataset's files)"
            )
        if op.recall_k is not None and (op.recall_k < 1 or GenKind.QUERY_VECTOR not in kinds):
            raise ValueError(
                f"operation {op.name!r}: recall_k {op.recall_k} needs k >= 1 and a"
                " query_vector bind"
            )


class WorkloadSpec(Record):
    """Everything the engine needs for one run."""

    schema_version: Literal[1] = SCHEMA_VERSION
    connection: Connection
    schema_cql: list[str] = Field(default_factory=list)  # run once, in order, before load
    keyspace: str | None = None  # USE keyspace for the session
    operations: list[Operation]
    keys: Distribution  # key index per cycle (cassandra-stress -pop, YCSB request dist)
    rate: Rate
    stop: Stop
    warmup_s: float = 0.0  # run, then discard, before the measured phase
    seed: int = 0  # the operation sequence; 0 <= seed < 2**63 (the engine's i64)
    data_seed: int = 0  # the values written and validated; 0 <= data_seed < 2**63
    validate_reads: bool = False
    output: Output = Field(default_factory=Output)
    verify: Verify | None = None  # read back acknowledged writes after the measured phase
    vectors: VectorFiles | None = None  # the dataset of base_vector / query_vector binds

    @model_validator(mode="after")
    def _stops(self) -> WorkloadSpec:
        if not self.operations:
            raise ValueError("operations is empty; give at least one operation")
        if not self.warmup_s >= 0:
            raise ValueError(f"warmup_s must be >= 0 (got {self.warmup_s})")
        for name, value in (("seed", self.seed), ("data_seed", self.data_seed)):
            if not 0 <= value < 2**63:
                raise ValueError(f"{name} must be >= 0 and < 2**63 (got {value})")
        if (
            not isinstance(self.rate, ThreadRamp)
            and self.stop.ops is None
            and (self.stop.duration_s is None)
        ):
            raise ValueError("stop: give ops (n=) or duration_s (duration=); a run must end")
        if self.verify is not None:
            writes = [op for op in self.operations if op.kind is OpKind.WRITE]
            for op in writes:
                if op.batch is not None:
                    raise ValueError(
                        f"verify: operation {op.name!r} writes batches, whose acknowledged rows"
                        " are not verified; leave verify out or write one row per operation"
                    )
            if not writes:
                raise ValueError(
                    "verify: no operation of kind write; verify reads back what writes acknowledged"
                )
        _check_vectors(self)
        return self
