"""What a tuning run measures and writes (typed records; ``tuning.json`` is
:class:`TuningResult`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import Field

from casslab.record import Record
from casslab.tune.spec import ParamValue

TUNING_SCHEMA_VERSION: Literal[1] = 1


class Role(StrEnum):
    DEFAULT = "default"  # the default configuration (the base file's settings)
    SEARCH = "search"  # a candidate the search asked for
    SWEEP = "sweep"  # a point of the one-at-a-time sweep
    CONFIRM = "confirm"  # a re-measurement of a candidate or of the default


class Measurement(Record):
    """One evaluation of a configuration: a real trial (or, in tests, a synthetic one)."""

    schema_version: Literal[1] = TUNING_SCHEMA_VERSION
    label: str  # the trial's cell id in the run directory: s003, sweep-04, confirm-d-2
    params: dict[str, ParamValue]
    finished: bool  # False: the trial failed (reason says why)
    reason: str | None = None
    op_rate: float | None = None  # ops/s over the steady part of the measured phase
    p99_ms: float | None = None
    errors: float | None = None
    trial_dir: Path | None = None
    duration_s: float = 0.0  # wall seconds of the evaluation


class ScoredTrial(Record):
    """A measurement with what the objective makes of it."""

    number: int | None = None  # the Optuna trial number (search trials)
    role: Role
    measurement: Measurement
    values: tuple[float, ...]  # the objective value(s); failed trials get the worst
    feasible: bool  # finished, no errors and within the bounds
    violations: tuple[str, ...] = ()  # why not feasible


class Estimate(Record):
    """A mean over repetitions with its Student-t 95% CI (None: fewer than two)."""

    mean: float | None
    ci: tuple[float, float] | None
    n: int
    labels: tuple[str, ...]  # the trials it rests on


class Verdict(StrEnum):
    GAIN = "significant gain"
    NO_GAIN = "no significant gain"
    WORSE = "significantly worse"
    INFEASIBLE = "infeasible"  # its confirmation trials broke the bounds or had errors
    UNDETERMINED = "undetermined"


class Confirmation(Record):
    """One candidate re-measured against the default, interleaved (ABAB)."""

    label: str  # the candidate: its search trial's label, or sweep's
    source: Role  # SEARCH or SWEEP
    params: dict[str, ParamValue]
    metric: str  # op_rate or p99_ms
    candidate: Estimate
    default: Estimate
    gain_pct: float | None  # (candidate / default - 1) x 100, in the good direction's sign
    gain_ci_pct: tuple[float, float] | None  # 95% CI of it (Fieller's ratio interval)
    p_value: float | None  # Welch's t-test of the difference
    verdict: Verdict
    reason: str  # one sentence: why this verdict
    method: str


class Point(Record):
    """A configuration and its objective, as ``tuning.json`` names them."""

    params: dict[str, ParamValue]
    objective: float | None
    ci: tuple[float, float] | None = None
    label: str | None = None
    trials: tuple[str, ...] = ()  # the trials the figure rests on


class Recommendation(Record):
    """What the run recommends and on which evidence."""

    verdict: Verdict
    sentence: str
    params: dict[str, ParamValue]
    settings: dict[str, object]  # cassandra.yaml
    table: dict[str, object]  # table options
    gain_pct: float | None = None
    gain_ci_pct: tuple[float, float] | None = None


class TuningResult(Record):
    """``tuning.json``: ``best``, ``default`` and ``trials`` as the issue names them, and
    the evidence behind them."""

    schema_version: Literal[1] = TUNING_SCHEMA_VERSION
    name: str
    objective: str  # the objective in words
    metric: str  # op_rate or p99_ms: what "objective" figures are
    direction: Literal["maximize", "minimize"]
    best: Point
    default: Point
    trials: tuple[ScoredTrial, ...]
    sweep: tuple[ScoredTrial, ...] = ()
    sweep_best: Point | None = None
    confirmations: tuple[Confirmation, ...] = ()
    confirm_trials: tuple[Measurement, ...] = ()
    recommendation: Recommendation
    importance: dict[str, float] = Field(default_factory=dict)
    importance_method: str = ""
    pareto: tuple[ScoredTrial, ...] = ()  # goal pareto: the feasible front
    search_s: float = 0.0
    budget_trials: int | None = None
    stopped_by: str = ""  # what ended the search
