"""The experiment file as typed records, and the small pure parsers its fields need.

An experiment file (YAML) says which cluster to run, which factors to vary over which
levels, how to load and measure each trial, and which KPIs to report. The shape::

    name: quick-compaction
    cluster: {nodes: 1, version: 5.0.9, heap: 1G, config: {auto_snapshot: false}}
    schema: {keyspace: keyspace1, replication: {class: SimpleStrategy, replication_factor: 1}}
    table: {compaction: {class: SizeTieredCompactionStrategy, min_threshold: 4}}
    factors:                                   # ordered: the order of cell ids and reports
      table.compaction: [STCS, LCS, UCS]
      config.memtable_flush_writers+memtable_cleanup_threshold: [[8, 0.11], [6, 0.14]]
    design: factorial                          # factorial | ofat
    baseline: {table.compaction: STCS}         # default: the first level of every factor
    extra_cells: []                            # more cells, e.g. the tuned combination
    preload: "write n=50000 cl=ONE -rate threads=16"
    warmup: 5s
    workload: "mixed ratio(write=9,read=1)"    # when the workload is not a factor
    measure: "duration=30s cl=ONE -pop dist=UNIFORM(1..50000) -rate threads=16"
    iterations: 3
    order: {kind: randomized, seed: 1}         # or just: randomized | sequential
    reset: recreate                            # truncate | recreate | restart
    kpis: [op_rate, latency_p99_ms]

Factor kinds, by name: ``config.<cassandra.yaml key>`` (nodes restart when it changes),
``config.<key>+<key>...`` (a *linked* factor: each level is a list with one value per
key, and the keys move together), ``table.<option>`` (a CQL table option;
``table.compaction`` levels are a strategy name or a mapping ``{class: ..., <option>:
...}``), ``workload`` (a cassandra-stress or YCSB command), ``threads`` (closed-loop
concurrency), ``rate`` (ops/s, open loop) and ``nodes``.

``measure`` options apply to every measured command: a ``key=value`` of the workload
wins over the same key in ``measure``, an option of the workload (``-rate``, ``-pop``)
replaces the same option of ``measure``, and ``threads`` / ``rate`` levels override both
(see :func:`casslab.experiment.plan.compose_command`). When the workload factor mixes
cassandra-stress and YCSB commands, ``measure`` is a mapping ``{stress: ..., ycsb: ...}``.
Files named in commands (``user profile=...``, YCSB ``-P``) are relative to the
experiment file.

The records here check each field's own shape; checks across fields and against other
parts (cassandra.yaml settings, stress syntax, KPI names) live in
:mod:`casslab.experiment.loader`, which reports every problem of a file at once.
"""

from __future__ import annotations

import difflib
import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator, model_validator

from casslab.errors import ExperimentError

SCHEMA_VERSION: Literal[1] = 1

Level = Any
"""One level of a factor, as written in the file: a scalar, a mapping or (linked) a list."""


class Record(BaseModel):
    """Base of every experiment record: frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ExperimentValidationError(ExperimentError):
    """An experiment file has problems; ``problems`` lists each as ``<path>: <message>``."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = list(problems)
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        lines = "\n".join(f"  {problem}" for problem in self.problems)
        super().__init__(f"experiment {source}: {count} {noun}; fix each and run again:\n{lines}")


# ---------------------------------------------------------------- durations


_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_DURATION_UNITS_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def parse_duration_s(value: object) -> float:
    """``"10s"`` -> 10.0, ``"5m"`` -> 300.0, ``"500ms"`` -> 0.5, a bare number is seconds.

    Raises ValueError with the accepted forms when ``value`` is none of them.
    """
    if isinstance(value, bool):
        raise ValueError(f"expected a duration like 10s, 5m or 1h, got {value!r}")
    if isinstance(value, int | float):
        if value < 0:
            raise ValueError(f"expected a duration >= 0, got {value!r}")
        return float(value)
    if isinstance(value, str):
        match = _DURATION_RE.match(value)
        if match is not None:
            return float(match.group(1)) * _DURATION_UNITS_S[match.group(2)]
    raise ValueError(f"expected a duration like 10s, 5m or 1h, got {value!r}")


# ---------------------------------------------------------------- compaction


STRATEGY_PACKAGE = "org.apache.cassandra.db.compaction."

COMPACTION_STRATEGIES: dict[str, str] = {
    "SizeTieredCompactionStrategy": "STCS",
    "LeveledCompactionStrategy": "LCS",
    "TimeWindowCompactionStrategy": "TWCS",
    "UnifiedCompactionStrategy": "UCS",
}
"""Built-in strategies of Cassandra 5.0 and their usual abbreviations."""

_STRATEGY_BY_ALIAS = {alias.lower(): name for name, alias in COMPACTION_STRATEGIES.items()}
_STRATEGY_BY_ALIAS.update({name.lower(): name for name in COMPACTION_STRATEGIES})

_REMOVED_STRATEGIES = {
    "datetieredcompactionstrategy": "DateTieredCompactionStrategy was removed in Cassandra "
    "4.0; use TimeWindowCompactionStrategy (TWCS) or UnifiedCompactionStrategy (UCS)",
    "dtcs": "DateTieredCompactionStrategy (DTCS) was removed in Cassandra 4.0; use "
    "TimeWindowCompactionStrategy (TWCS) or UnifiedCompactionStrategy (UCS)",
}

_COMMON_COMPACTION_OPTIONS = frozenset(
    {
        "enabled",
        "log_all",
        "only_purge_repaired_tombstones",
        "provide_overlapping_tombstones",
        "tombstone_compaction_interval",
        "tombstone_threshold",
        "unchecked_tombstone_compaction",
        "max_threshold",
        "min_threshold",
    }
)

COMPACTION_OPTIONS: dict[str, frozenset[str]] = {
    "SizeTieredCompactionStrategy": _COMMON_COMPACTION_OPTIONS
    | {"bucket_high", "bucket_low", "min_sstable_size"},
    "LeveledCompactionStrategy": _COMMON_COMPACTION_OPTIONS
    | {"sstable_size_in_mb", "fanout_size", "single_sstable_uplevel"},
    "TimeWindowCompactionStrategy": _COMMON_COMPACTION_OPTIONS
    | {
        "compaction_window_unit",
        "compaction_window_size",
        "timestamp_resolution",
        "expired_sstable_check_frequency_seconds",
        "unsafe_aggressive_sstable_expiration",
    },
    "UnifiedCompactionStrategy": _COMMON_COMPACTION_OPTIONS
    | {
        "scaling_parameters",
        "target_sstable_size",
        "base_shard_count",
        "min_sstable_size",
        "sstable_growth",
        "flush_size_override",
        "max_sstables_to_compact",
        "expired_sstable_check_frequency_seconds",
        "unsafe_aggressive_sstable_expiration",
        "overlap_inclusion_method",
        "survival_factor",
        "reserved_threads",
        "parallelize_output_shards",
    },
}
"""Strategy options Cassandra 5.0 accepts, per built-in strategy (custom ones: anything)."""

CompactionOption = str | int | float | bool


def canonical_strategy(name: str) -> str:
    """A strategy as Cassandra names it: ``LCS`` -> ``LeveledCompactionStrategy``.

    Built-in strategies lose the ``org.apache.cassandra.db.compaction.`` prefix; any other
    dotted name is taken as a custom strategy class. Raises ValueError for anything else.
    """
    text = name.strip()
    short = text.removeprefix(STRATEGY_PACKAGE)
    removed = _REMOVED_STRATEGIES.get(short.lower())
    if removed is not None:
        raise ValueError(removed)
    known = _STRATEGY_BY_ALIAS.get(short.lower())
    if known is not None:
        return known
    if "." in short and re.fullmatch(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+", short):
        return short  # a custom strategy class, fully qualified
    choices = ", ".join(f"{n} ({a})" for n, a in COMPACTION_STRATEGIES.items())
    raise ValueError(f"unknown compaction strategy {name!r}: expected one of {choices}")


def strategy_alias(strategy: str) -> str:
    """``LeveledCompactionStrategy`` -> ``LCS``; a custom class keeps its simple name."""
    return COMPACTION_STRATEGIES.get(strategy, strategy.rsplit(".", 1)[-1])


class Compaction(Record):
    """A table's compaction: the strategy and its options, as in CQL ``compaction = {...}``.

    In a file it is a strategy name (``LCS``, ``LeveledCompactionStrategy``) or a mapping
    ``{class: LeveledCompactionStrategy, sstable_size_in_mb: 160}``.
    """

    strategy: str
    options: dict[str, CompactionOption] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _from_file(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"strategy": data}
        if isinstance(data, dict) and "class" in data:
            options = {k: v for k, v in data.items() if k != "class"}
            return {"strategy": data["class"], "options": options}
        if not isinstance(data, dict) or "strategy" not in data:
            raise ValueError(
                "expected a strategy name or a mapping with 'class' (e.g. {class: "
                f"LeveledCompactionStrategy, sstable_size_in_mb: 160}}), got {data!r}"
            )
        return data

    @field_validator("strategy")
    @classmethod
    def _strategy(cls, value: str) -> str:
        return canonical_strategy(value)

    @model_validator(mode="after")
    def _options(self) -> Compaction:
        allowed = COMPACTION_OPTIONS.get(self.strategy)
        if allowed is None:
            return self
        unknown = sorted(set(self.options) - allowed)
        if unknown:
            raise ValueError(
                f"unknown option(s) {', '.join(unknown)} for {self.strategy}; "
                f"known: {', '.join(sorted(allowed))}"
            )
        return self

    def to_cql_map(self) -> dict[str, str]:
        """The CQL map literal's entries: every value as a string, ``class`` first."""
        entries = {"class": self.strategy}
        for key, value in self.options.items():
            entries[key] = str(value).lower() if isinstance(value, bool) else str(value)
        return entries


# ---------------------------------------------------------------- table options


def _cql_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dict):
        items = [f"{_cql_value(str(k))}: {_cql_value(_map_str(v))}" for k, v in value.items()]
        return "{" + ", ".join(items) + "}"
    return "'" + str(value).replace("'", "''") + "'"


def _map_str(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class TableOptions(Record):
    """CQL options of the measured table (``CREATE TABLE ... WITH ...``); None = default."""

    compaction: Compaction | None = None
    compression: dict[str, CompactionOption] | None = None
    caching: dict[str, str | int] | None = None
    bloom_filter_fp_chance: float | None = Field(default=None, gt=0, le=1)
    crc_check_chance: float | None = Field(default=None, ge=0, le=1)
    default_time_to_live: StrictInt | None = Field(default=None, ge=0)
    gc_grace_seconds: StrictInt | None = Field(default=None, ge=0)
    memtable_flush_period_in_ms: StrictInt | None = Field(default=None, ge=0)
    min_index_interval: StrictInt | None = Field(default=None, ge=1)
    max_index_interval: StrictInt | None = Field(default=None, ge=1)
    speculative_retry: str | None = None
    additional_write_policy: str | None = None
    read_repair: Literal["BLOCKING", "NONE"] | None = None
    memtable: str | None = None  # a memtable configuration named in cassandra.yaml (5.0)
    cdc: bool | None = None
    allow_auto_snapshot: bool | None = None
    incremental_backups: bool | None = None
    comment: str | None = None

    def with_option(self, option: str, level: Level) -> TableOptions:
        """These options with ``option`` set to a factor level (validated)."""
        data = self.model_dump(exclude_none=True)
        data[option] = level
        return TableOptions.model_validate(data)

    def to_cql(self) -> str:
        """The ``WITH`` clause body: ``compaction = {...} AND gc_grace_seconds = 0``.

        Empty when every option is left at Cassandra's default.
        """
        parts: list[str] = []
        for option in type(self).model_fields:
            value = getattr(self, option)
            if value is None:
                continue
            if isinstance(value, Compaction):
                value = value.to_cql_map()
            parts.append(f"{option} = {_cql_value(value)}")
        return " AND ".join(parts)


TABLE_OPTIONS = tuple(TableOptions.model_fields)


# ---------------------------------------------------------------- file sections


_HEAP_RE = re.compile(r"^\d+[MmGg]$")
_VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")


class ClusterSection(Record):
    """The cluster every trial runs on; ``config`` is cassandra.yaml by 5.0 names."""

    nodes: StrictInt = Field(default=1, ge=1)
    version: str | None = None  # None: the default 5.0.x (or CASSANDRA_HOME)
    heap: str | None = None  # JVM heap per node, e.g. 1G or 512M; None: sized from memory
    config: dict[str, Any] = Field(default_factory=dict)

    @field_validator("heap")
    @classmethod
    def _heap(cls, value: str | None) -> str | None:
        if value is not None and not _HEAP_RE.match(value):
            raise ValueError(f"expected a heap size like 512M or 1G, got {value!r}")
        return value

    @field_validator("version", mode="before")
    @classmethod
    def _version(cls, value: Any) -> Any:
        if isinstance(value, float):  # YAML reads 5.0 as a number
            value = str(value)
        if isinstance(value, str) and not _VERSION_RE.match(value):
            raise ValueError(f"expected a Cassandra version like 5.0.9, got {value!r}")
        return value


def _simple_replication() -> dict[str, str | int]:
    return {"class": "SimpleStrategy", "replication_factor": 1}


class SchemaSection(Record):
    """The keyspace the workload uses and its replication."""

    keyspace: str = Field(default="keyspace1", pattern=r"^[A-Za-z][A-Za-z0-9_]{0,47}$")
    replication: dict[str, str | StrictInt] = Field(default_factory=_simple_replication)

    @field_validator("replication")
    @classmethod
    def _replication(cls, value: dict[str, str | int]) -> dict[str, str | int]:
        strategy = value.get("class")
        if not isinstance(strategy, str):
            raise ValueError(
                "expected 'class' (SimpleStrategy or NetworkTopologyStrategy), e.g. "
                "{class: SimpleStrategy, replication_factor: 1}"
            )
        if strategy.rsplit(".", 1)[-1] == "SimpleStrategy":
            factor = value.get("replication_factor")
            if not isinstance(factor, int) or factor < 1:
                raise ValueError("SimpleStrategy needs replication_factor: an integer >= 1")
        return value


class OrderKind(StrEnum):
    RANDOMIZED = "randomized"  # every round of iterations runs the cells in a seeded order
    SEQUENTIAL = "sequential"  # cells in design order, all iterations of one cell in a row


class Order(Record):
    kind: OrderKind = OrderKind.RANDOMIZED
    seed: StrictInt = 1

    @model_validator(mode="before")
    @classmethod
    def _from_word(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"kind": data}
        return data


class Design(StrEnum):
    FACTORIAL = "factorial"  # every combination of levels
    OFAT = "ofat"  # the baseline, then each factor's other levels with the rest at baseline


class ResetPolicy(StrEnum):
    TRUNCATE = "truncate"  # empty the tables (no snapshot), keep schema and nodes
    RECREATE = "recreate"  # drop and re-create the keyspace
    RESTART = "restart"  # stop the nodes, wipe their data, start them again


class MeasureByTool(Record):
    """Measure options per tool, when the workload factor mixes stress and YCSB commands."""

    stress: str = ""
    ycsb: str = ""


DEFAULT_KPIS = ("op_rate", "latency_mean_ms", "latency_p99_ms", "errors")


class Experiment(Record):
    """One experiment file, checked field by field. See the module docstring for the shape."""

    schema_version: Literal[1] = SCHEMA_VERSION
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    description: str = ""
    cluster: ClusterSection = Field(default_factory=ClusterSection)
    schema_: SchemaSection = Field(default_factory=SchemaSection, alias="schema")
    table: TableOptions = Field(default_factory=TableOptions)
    factors: dict[str, list[Level]] = Field(default_factory=dict)
    design: Design = Design.FACTORIAL
    baseline: dict[str, Level] = Field(default_factory=dict)
    extra_cells: list[dict[str, Level]] = Field(default_factory=list)
    preload: str | None = None
    warmup: str | int | float = "0s"
    workload: str | None = None
    measure: str | MeasureByTool = ""
    iterations: StrictInt = Field(default=3, ge=1)
    order: Order = Field(default_factory=Order)
    reset: ResetPolicy = ResetPolicy.TRUNCATE
    kpis: list[str] = Field(default_factory=lambda: list(DEFAULT_KPIS))

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @field_validator("warmup", mode="before")
    @classmethod
    def _warmup(cls, value: Any) -> Any:
        parse_duration_s(value)  # raises ValueError naming the accepted forms
        return value

    @property
    def warmup_s(self) -> float:
        return parse_duration_s(self.warmup)

    def to_file_dict(self) -> dict[str, Any]:
        """The experiment as a plain mapping with the file's field names (for manifests)."""
        return self.model_dump(mode="json", by_alias=True)


# ---------------------------------------------------------------- factors


class FactorKind(StrEnum):
    CONFIG = "config"  # cassandra.yaml setting(s): nodes restart when a level changes
    TABLE = "table"  # a CQL table option of the measured table
    WORKLOAD = "workload"  # a cassandra-stress or YCSB command
    THREADS = "threads"  # closed-loop concurrency
    RATE = "rate"  # open-loop target rate, ops/s
    NODES = "nodes"  # node count


_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
FACTOR_FORMS = (
    "config.<cassandra.yaml key>, config.<key>+<key> (linked), table.<option>, "
    "workload, threads, rate or nodes"
)


class Factor(Record):
    """A factor of the design: what it varies and its levels, in file order."""

    name: str  # as written in the file: "config.memtable_flush_writers"
    kind: FactorKind
    keys: tuple[str, ...] = ()  # config keys (several when linked) or the table option
    levels: tuple[Level, ...]

    @property
    def linked(self) -> bool:
        return self.kind is FactorKind.CONFIG and len(self.keys) > 1

    @property
    def short_name(self) -> str:
        """The name without its kind prefix: ``memtable_flush_writers``, ``compaction``."""
        return "+".join(self.keys) if self.keys else self.name


def parse_factor_name(name: str) -> tuple[FactorKind, tuple[str, ...]]:
    """``config.a+b`` -> (CONFIG, ("a", "b")); ``threads`` -> (THREADS, ()).

    Raises ValueError naming the accepted forms for an unknown kind or a malformed key.
    """
    kind_text, dot, rest = name.partition(".")
    simple = {FactorKind.WORKLOAD, FactorKind.THREADS, FactorKind.RATE, FactorKind.NODES}
    if not dot and kind_text in {k.value for k in simple}:
        return FactorKind(kind_text), ()
    if dot and kind_text == FactorKind.CONFIG.value:
        keys = tuple(key.strip() for key in rest.split("+"))
        bad = [key for key in keys if not _KEY_RE.match(key)]
        if bad:
            raise ValueError(
                f"malformed cassandra.yaml key {bad[0]!r} in factor {name!r}: expected "
                "config.<key> or config.<key>+<key> with lower-case keys"
            )
        if len(set(keys)) != len(keys):
            raise ValueError(f"factor {name!r} names a key twice")
        return FactorKind.CONFIG, keys
    if dot and kind_text == FactorKind.TABLE.value:
        if rest not in TABLE_OPTIONS:
            close = difflib.get_close_matches(rest, TABLE_OPTIONS, n=1)
            hint = f" (did you mean table.{close[0]}?)" if close else ""
            raise ValueError(f"unknown table option {rest!r}{hint}")
        return FactorKind.TABLE, (rest,)
    raise ValueError(f"unknown factor kind {name!r}: expected {FACTOR_FORMS}")


def factors_of(experiment: Experiment) -> tuple[Factor, ...]:
    """The experiment's factors as records, in file order (the file must be valid)."""
    out: list[Factor] = []
    for name, levels in experiment.factors.items():
        kind, keys = parse_factor_name(name)
        out.append(Factor(name=name, kind=kind, keys=keys, levels=tuple(levels)))
    return tuple(out)
