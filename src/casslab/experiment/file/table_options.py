"""The measured table's CQL options, compaction above all (pure).

``table:`` in an experiment file and every ``table.<option>`` factor level become a
:class:`TableOptions`; its :meth:`~TableOptions.to_cql` is the ``WITH`` clause the runner
adds to the workload's tables. A compaction is a strategy name (``LCS``,
``LeveledCompactionStrategy``) or a mapping ``{class: ..., <option>: ...}``, checked against
the strategies and options Cassandra 5.0 knows.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, StrictInt, field_validator, model_validator

from casslab.cql_text import string_literal
from casslab.experiment.file.file_record import Level, Record

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
        negative = sorted(
            k
            for k, v in self.options.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and v < 0
        )
        if negative:
            raise ValueError(
                f"option(s) {', '.join(negative)} of {self.strategy} must not be negative"
            )
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
        items = [f"{_cql_value(str(k))}: {_cql_value(option_text(v))}" for k, v in value.items()]
        return "{" + ", ".join(items) + "}"
    return string_literal(value)


def option_text(value: object) -> str:
    """A map option's value as text: ``true`` / ``false`` for booleans, else ``str``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_ONE_POLICY = r"(?:\d+(?:\.\d+)?(?:p|PERCENTILE|ms)|NONE|ALWAYS)"
_RETRY_POLICY = re.compile(
    rf"{_ONE_POLICY}|(?:MIN|MAX)\(\s*{_ONE_POLICY}\s*,\s*{_ONE_POLICY}\s*\)", re.I
)
"""Cassandra's speculative_retry / additional_write_policy forms."""


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

    @field_validator("speculative_retry", "additional_write_policy")
    @classmethod
    def _retry_policy(cls, value: str | None) -> str | None:
        if value is None or _RETRY_POLICY.fullmatch(value.strip()):
            return value
        raise ValueError(
            f"{value!r} is not a retry policy: use NONE, ALWAYS, a percentile (99p or "
            "99PERCENTILE), a time (50ms), or MIN(...)/MAX(...) of two of them"
        )

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
