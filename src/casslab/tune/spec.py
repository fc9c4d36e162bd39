"""The ``tune:`` section of a tune file as typed records (pure).

A tune file is an experiment file without ``factors`` (and without ``baseline``,
``extra_cells``, ``design`` and ``iterations``: the search decides what runs) plus::

    tune:
      space:                                   # what varies; at least one entry
        config.memtable_heap_space: {size: [64MiB, 512MiB], log: true}
        config.compaction_throughput: {rate: [8MiB/s, 256MiB/s], log: true}
        config.concurrent_compactors: {int: [1, 4], default: 1}
        config.memtable_cleanup_threshold: {float: [0.05, 0.5]}
        config.memtable_flush_writers+memtable_cleanup_threshold:   # linked: a choice only
          {choice: [[1, 0.5], [2, 0.33], [4, 0.2]]}
        table.compaction:                      # strategies, each with its own sub-options
          STCS: {min_threshold: {int: [2, 32]}}
          LCS: {sstable_size_in_mb: {int: [80, 320]}}
          UCS: {}
        table.bloom_filter_fp_chance: {float: [0.001, 0.1], log: true}
      objective: {goal: max-throughput, p99_ms_max: 50}   # | {goal: min-p99, rate: 4000}
                                                          # | {goal: pareto}
      budget: {trials: 20, wall: 45m}          # either or both
      confirm: {top: 3, repetitions: 3}        # top 0: no confirmation
      compare: one-at-a-time                   # also run an OFAT sweep of the same budget
      seed: 0                                  # the sampler's seed
      jvm_warmup: 30s                          # JIT rehearsal after each (re)start

Range forms: ``int: [lo, hi]`` (integers), ``float: [lo, hi]``, ``size: [64MiB, 4GiB]``
(a data size: searched as an integer count of the *lower* bound's unit, written back as
``<n><unit>``, e.g. ``384MiB``), ``rate: [8MiB/s, 256MiB/s]`` (a data rate, likewise),
``log: true`` (search on a log scale; needs ``lo > 0``); ``choice: [...]`` lists values
(for a linked ``config.a+b`` entry each value is a list, one per key). ``default:`` is the
value Cassandra uses when the file does not set it, so the default configuration is a
point of the space; without it, and without a value in ``cluster.config`` (or ``table:``),
the default configuration leaves the setting out (Cassandra's own default).
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, StrictInt, field_validator, model_validator

from casslab.record import Record
from casslab.units import duration_s

ParamValue = int | float | str | bool | None
"""One parameter's value as the search stores it (Optuna's own types)."""


class RangeKind(StrEnum):
    INT = "int"  # integers from lo to hi
    FLOAT = "float"  # real numbers from lo to hi
    SIZE = "size"  # a data size, searched as an integer count of one unit (MiB, KiB, ...)
    RATE = "rate"  # a data rate, searched as an integer count of one unit (MiB/s, ...)


RANGE_KINDS = tuple(k.value for k in RangeKind)
SIZE_RE = re.compile(r"^(\d+)(GiB|MiB|KiB|B)$")
RATE_RE = re.compile(r"^(\d+)(GiB/s|MiB/s|KiB/s|B/s)$")
SIZE_FACTORS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


def unit_value(text: str, kind: RangeKind) -> tuple[int, str] | None:
    """``"384MiB"`` -> (384, "MiB") for a size, ``"16MiB/s"`` -> (16, "MiB/s") for a rate;
    None when ``text`` is not of the kind's form."""
    match = (SIZE_RE if kind is RangeKind.SIZE else RATE_RE).match(text.strip())
    return (int(match.group(1)), match.group(2)) if match else None


def in_unit(text: str, kind: RangeKind, unit: str) -> float | None:
    """A size or rate in ``unit`` (``"2GiB"`` in MiB -> 2048.0); None when malformed."""
    parsed = unit_value(text, kind)
    if parsed is None:
        return None
    count, own = parsed
    return count * SIZE_FACTORS[own.removesuffix("/s")] / SIZE_FACTORS[unit.removesuffix("/s")]


class Target(StrEnum):
    CONFIG = "config"  # cassandra.yaml: the nodes restart when it changes
    TABLE = "table"  # a CQL option of the measured table: no restart


class RangeParam(Record):
    """A setting searched over a range."""

    name: str  # the search's parameter name: "config.memtable_heap_space"
    target: Target
    keys: tuple[str, ...]  # one cassandra.yaml key or table option (or sub-option)
    kind: RangeKind
    low: float
    high: float
    log: bool = False
    unit: str | None = None  # size and rate: the unit counted ("MiB", "MiB/s")
    default: ParamValue = None  # the default configuration's value, as the search stores it

    @model_validator(mode="after")
    def _ordered(self) -> RangeParam:
        if self.low >= self.high:
            raise ValueError(f"{self.name}: lo ({self.low:g}) must be < hi ({self.high:g})")
        if self.log and self.low <= 0:
            raise ValueError(f"{self.name}: log: true needs lo > 0, got {self.low:g}")
        return self

    @property
    def integer(self) -> bool:
        return self.kind is not RangeKind.FLOAT

    def level(self, value: ParamValue) -> Any:
        """The value as the file writes it: ``384`` -> ``"384MiB"`` for a size."""
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ValueError(f"{self.name}: expected a number, got {value!r}")
        if self.kind in (RangeKind.SIZE, RangeKind.RATE):
            return f"{int(value)}{self.unit}"
        return int(value) if self.integer else float(value)


class ChoiceParam(Record):
    """A setting searched over listed values (a linked ``config.a+b``: one list a value)."""

    name: str
    target: Target
    keys: tuple[str, ...]
    choices: tuple[Any, ...] = Field(min_length=2)
    default: ParamValue = None

    @property
    def encoded(self) -> tuple[ParamValue, ...]:
        """The choices as the search stores them: scalars as they are, lists as text."""
        return tuple(encode_choice(c) for c in self.choices)

    def level(self, value: ParamValue) -> Any:
        """The file's value of a stored choice."""
        for choice in self.choices:
            if encode_choice(choice) == value:
                return choice
        raise ValueError(f"{self.name}: {value!r} is not one of its choices")


def encode_choice(choice: Any) -> ParamValue:
    """A choice as Optuna stores it: a scalar as it is, a list as ``"[8, 0.11]"``."""
    if isinstance(choice, list | tuple):
        return "[" + ", ".join(str(v) for v in choice) + "]"
    if choice is None or isinstance(choice, int | float | str | bool):
        return choice
    return str(choice)


class StrategySpace(Record):
    """One compaction strategy of a ``table.compaction`` entry and its searched options."""

    strategy: str  # as Cassandra names it: LeveledCompactionStrategy
    alias: str  # LCS: the value the search stores
    options: tuple[RangeParam | ChoiceParam, ...] = ()


class CompactionParam(Record):
    """``table.compaction``: a strategy, and sub-options searched only with their strategy."""

    name: Literal["table.compaction"] = "table.compaction"
    strategies: tuple[StrategySpace, ...] = Field(min_length=1)
    default: ParamValue = None  # the default configuration's strategy alias
    default_options: dict[str, ParamValue] = Field(default_factory=dict)  # by param name

    def strategy_of(self, alias: ParamValue) -> StrategySpace:
        for strategy in self.strategies:
            if strategy.alias == alias:
                return strategy
        raise ValueError(f"table.compaction: {alias!r} is not one of its strategies")


Param = RangeParam | ChoiceParam | CompactionParam


def sub_name(alias: str, option: str) -> str:
    """The search's name of a compaction sub-option: ``table.compaction.LCS.fanout_size``."""
    return f"table.compaction.{alias}.{option}"


class Space(Record):
    """What the search varies, in file order."""

    params: tuple[Param, ...] = Field(min_length=1)

    def names(self) -> list[str]:
        """Every parameter name, sub-options included."""
        out: list[str] = []
        for param in self.params:
            out.append(param.name)
            if isinstance(param, CompactionParam):
                out += [o.name for s in param.strategies for o in s.options]
        return out


class Goal(StrEnum):
    MAX_THROUGHPUT = "max-throughput"  # op_rate up, subject to p99 <= p99_ms_max, no errors
    MIN_P99 = "min-p99"  # p99 down at a fixed open-loop rate, no errors, rate kept
    PARETO = "pareto"  # op_rate up and p99 down: the Pareto front


class Objective(Record):
    """What the search optimises, and the constraints a feasible trial meets."""

    goal: Goal = Goal.MAX_THROUGHPUT
    p99_ms_max: float | None = Field(default=None, gt=0)  # max-throughput (pareto: optional)
    rate: float | None = Field(default=None, gt=0)  # min-p99: every trial's open-loop rate
    rate_kept_pct: float = Field(default=95.0, gt=0, le=100)  # min-p99: op_rate >= this % of rate

    @model_validator(mode="after")
    def _needs(self) -> Objective:
        if self.goal is Goal.MAX_THROUGHPUT and self.p99_ms_max is None:
            raise ValueError(
                "goal max-throughput needs p99_ms_max, the p99 bound a trial must meet "
                "(e.g. {goal: max-throughput, p99_ms_max: 50})"
            )
        if self.goal is Goal.MIN_P99 and self.rate is None:
            raise ValueError(
                "goal min-p99 needs rate, the open-loop ops/s every trial runs at "
                "(e.g. {goal: min-p99, rate: 4000})"
            )
        if self.goal is not Goal.MIN_P99 and self.rate is not None:
            raise ValueError(f"rate applies to goal min-p99 only, not {self.goal.value}")
        return self

    def describe(self) -> str:
        if self.goal is Goal.MAX_THROUGHPUT:
            return f"maximise op_rate subject to p99 <= {self.p99_ms_max:g} ms and no errors"
        if self.goal is Goal.MIN_P99:
            return (
                f"minimise p99 at {self.rate:g} ops/s (open loop) with no errors and at "
                f"least {self.rate_kept_pct:g}% of the rate kept"
            )
        bound = f", p99 <= {self.p99_ms_max:g} ms" if self.p99_ms_max is not None else ""
        return f"Pareto front of op_rate (up) and p99 (down), no errors{bound}"


class Budget(Record):
    """When the search stops: after ``trials`` search trials (the default configuration's
    included) or ``wall`` of trial time, whichever comes first."""

    trials: StrictInt | None = Field(default=None, ge=1)
    wall: str | None = None

    @field_validator("wall")
    @classmethod
    def _wall(cls, value: str | None) -> str | None:
        if value is not None:
            seconds = duration_s(value)
            if seconds is None or seconds <= 0:
                raise ValueError(f"expected a duration > 0 like 45m or 2h, got {value!r}")
        return value

    @model_validator(mode="after")
    def _some(self) -> Budget:
        if self.trials is None and self.wall is None:
            raise ValueError("give trials, wall or both (e.g. {trials: 20, wall: 45m})")
        return self

    @property
    def wall_s(self) -> float | None:
        return duration_s(self.wall) if self.wall is not None else None


class Confirm(Record):
    """The re-measurement of the best candidates against the default configuration."""

    top: StrictInt = Field(default=3, ge=0)  # 0: no confirmation
    repetitions: StrictInt = Field(default=3, ge=2)  # a CI needs two per side


class Compare(StrEnum):
    ONE_AT_A_TIME = "one-at-a-time"


class TuneSection(Record):
    """The ``tune:`` section, checked (see the module docstring)."""

    space: Space
    objective: Objective
    budget: Budget
    confirm: Confirm = Field(default_factory=Confirm)
    compare: Compare | None = None
    seed: StrictInt = Field(default=0, ge=0)
    jvm_warmup: str = "30s"

    @field_validator("jvm_warmup")
    @classmethod
    def _warmup(cls, value: str) -> str:
        if duration_s(value) is None:
            raise ValueError(f"expected a duration like 30s or 0s, got {value!r}")
        return value

    @property
    def jvm_warmup_s(self) -> float:
        return duration_s(self.jvm_warmup) or 0.0
