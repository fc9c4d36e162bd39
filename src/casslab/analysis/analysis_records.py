"""Typed records of the analysis: per-trial KPIs in, per-cell statistics and comparisons out.

Every record is a frozen pydantic model that forbids unknown fields. What each KPI name
means (unit, direction, help) is in :mod:`casslab.analysis.kpi_catalogue`; its names are
re-exported here, where older code imports them from.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Literal

from pydantic import Field, field_validator

from casslab.analysis.kpi_catalogue import DEFAULT_KPIS as DEFAULT_KPIS
from casslab.analysis.kpi_catalogue import KPI_CATALOGUE as KPI_CATALOGUE
from casslab.analysis.kpi_catalogue import NODE_KPI as NODE_KPI
from casslab.analysis.kpi_catalogue import Direction as Direction
from casslab.analysis.kpi_catalogue import KpiSpec as KpiSpec
from casslab.analysis.kpi_catalogue import kpi_spec as kpi_spec
from casslab.analysis.kpi_catalogue import node_kpi as node_kpi
from casslab.errors import AnalysisError
from casslab.record import Record

SCHEMA_VERSION: Literal[1] = 1


# ---------------------------------------------------------------- per-trial input


class KpiWindow(StrEnum):
    """Which part of the measured phase a trial's engine KPIs cover."""

    STEADY = "steady"  # from the steady-state start (latency percentiles from the HDR log)
    MEASURE = "measure"  # the whole measured phase (the engine's summary)


class SteadyState(Record):
    """Where a trial's measured phase became steady (:mod:`casslab.analysis.steady`).

    ``start_index`` / ``start_s`` are where the KPIs' window begins: the first interval
    (and its offset in seconds from the start of the measured phase) of the steady part.
    A trial that is not ``steady`` (its series trends, or is too short to judge) keeps its
    whole measured phase (``start_index`` 0) and ``reason`` says why; ``truncations`` still
    holds, per series, the interval MSER-5 chose, for the record.
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    method: Literal["MSER-5"] = "MSER-5"
    steady: bool
    start_index: int = Field(ge=0)  # first measured interval of the steady part
    start_s: float = Field(ge=0)  # seconds into the measured phase
    n_intervals: int = Field(ge=0)  # measured intervals judged
    batch_size: int = Field(default=5, ge=1)
    truncations: dict[str, int] = Field(default_factory=dict)  # series -> MSER's first interval
    # why not steady, "<head>: <detail>" with head "too short to judge", "trends throughout"
    # or "no series to judge"; None when steady
    reason: str | None = None


class TrialKpis(Record):
    """The KPIs of one finished trial. ``None`` means not measured, never zero.

    ``steady`` is the steady-state detection the KPIs rest on (``None``: not judged, the
    KPIs cover the whole measured phase); ``engine_window`` says which window the engine
    KPIs (op rate, latency) cover: the steady part or the whole measured phase
    (:class:`KpiWindow`).
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    trial_id: str
    cell_id: str
    iteration: int = Field(ge=0)
    factors: dict[str, str] = Field(default_factory=dict)
    kpis: dict[str, float | None]
    steady: SteadyState | None = None
    engine_window: KpiWindow = KpiWindow.MEASURE
    window_note: str | None = None  # why the engine KPIs cover the whole phase of a steady trial

    @field_validator("kpis")
    @classmethod
    def _known_and_finite(cls, kpis: dict[str, float | None]) -> dict[str, float | None]:
        for name, value in kpis.items():
            try:
                kpi_spec(name)
            except AnalysisError as error:
                raise ValueError(str(error)) from error
            if value is not None and not math.isfinite(value):
                raise ValueError(
                    f"KPI {name!r} is {value}: record a missing value as null, not NaN/inf"
                )
        return kpis


# ---------------------------------------------------------------- per-cell statistics


class ConfidenceInterval(Record):
    """A two-sided confidence interval and the method that produced it."""

    level: float = Field(gt=0, lt=1)
    low: float
    high: float
    method: str


class CellStats(Record):
    """Descriptive statistics of one KPI over the iterations of one cell.

    Statistics that cannot be computed are ``None``; ``ci_undetermined_reason`` says why
    the confidence interval is missing.
    """

    cell_id: str
    kpi: str
    unit: str
    n: int = Field(ge=0)  # iterations with a value
    n_missing: int = Field(ge=0)  # iterations where the KPI was not measured
    mean: float | None
    sd: float | None  # sample standard deviation (divisor n - 1)
    var: float | None  # sample variance, sd² (divisor n - 1)
    se: float | None  # standard error of the mean, sd / sqrt(n)
    ci: ConfidenceInterval | None
    ci_undetermined_reason: str | None
    rmse: float | None  # root-mean-square deviation about the mean (divisor n)
    cv: float | None  # coefficient of variation, sd / |mean|
    min: float | None
    max: float | None
    median: float | None


# ---------------------------------------------------------------- comparisons


class Verdict(StrEnum):
    """Outcome of comparing a cell with the baseline cell on one KPI.

    BETTER / WORSE only for KPIs with a direction; a NEUTRAL KPI (resources, compaction
    work) that differs significantly is CHANGED_UP or CHANGED_DOWN, never "better".
    """

    BETTER = "better"
    WORSE = "worse"
    CHANGED_UP = "changed_up"
    CHANGED_DOWN = "changed_down"
    NO_SIGNIFICANT_DIFFERENCE = "no_significant_difference"
    UNDETERMINED = "undetermined"


class Correction(StrEnum):
    """Multiple-comparison correction over the comparisons of one KPI."""

    NONE = "none"
    HOLM = "holm"  # Holm (1979), step-down, controls the family-wise error rate


class WarningCode(StrEnum):
    HIGH_CV = "high_cv"  # coefficient of variation above the threshold
    TRIAL_ERRORS = "trial_errors"  # some trial of the cell had failed operations
    TOO_FEW_ITERATIONS = "too_few_iterations"  # fewer values than the minimum
    MISSING_VALUES = "missing_values"  # some trial did not measure the KPI
    DIFFERENCE_WITHIN_NOISE = "difference_within_noise"  # |diff| < a cell's CI half-width
    HIGH_AUTOCORRELATION = "high_autocorrelation"  # interval series: n_eff << n


class AnalysisWarning(Record):
    """A caution attached to a statistic; the message names the values and the remedy."""

    code: WarningCode
    message: str
    cell_id: str | None = None
    kpi: str | None = None


class WelchTest(Record):
    """Welch's unequal-variances t-test of candidate minus baseline, two-sided."""

    difference: float  # candidate mean - baseline mean
    se: float  # standard error of the difference
    t: float
    df: float  # Welch-Satterthwaite degrees of freedom
    p_value: float
    ci: ConfidenceInterval  # of the difference
    method: str


FIELLER_METHOD = (
    "Fieller's theorem (Fieller 1954), independent means, Welch-Satterthwaite df at the estimate"
)


class RatioEstimate(Record):
    """Candidate mean / baseline mean with a confidence interval (Fieller's theorem)."""

    method: str = FIELLER_METHOD
    ratio: float | None
    ci: ConfidenceInterval | None
    undetermined_reason: str | None


class EffectSize(Record):
    """Standardised mean difference (candidate - baseline) / pooled SD."""

    cohens_d: float
    hedges_g: float  # small-sample bias corrected (exact gamma-function factor)
    method: str


class Comparison(Record):
    """One cell against the baseline cell on one KPI."""

    kpi: str
    unit: str
    direction: Direction
    baseline_cell: str
    cell_id: str
    baseline: CellStats
    candidate: CellStats
    difference: float | None  # candidate mean - baseline mean
    change_pct: float | None  # 100 * difference / |baseline mean|
    ratio: RatioEstimate
    welch: WelchTest | None
    p_value: float | None  # raw two-sided Welch p-value (Fisher's on counts: verdict_reason)
    p_value_adjusted: float | None  # after `correction`; equals p_value for NONE
    correction: Correction
    alpha: float
    effect_size: EffectSize | None
    verdict: Verdict
    verdict_reason: str
    warnings: list[AnalysisWarning] = Field(default_factory=list)


class AnalysisOptions(Record):
    """Thresholds of an analysis. ``alpha`` is the test level; CIs use ``confidence``."""

    confidence: float = Field(default=0.95, gt=0, lt=1)
    alpha: float = Field(default=0.05, gt=0, lt=1)
    correction: Correction = Correction.NONE
    cv_warning: float = Field(default=0.10, ge=0)  # warn above this coefficient of variation
    min_iterations: int = Field(default=3, ge=2)  # warn below this many values


class CellInfo(Record):
    """A cell and its factor levels (taken from its trials)."""

    cell_id: str
    factors: dict[str, str]
    trial_ids: list[str]


class Analysis(Record):
    """The whole statistical result of one experiment: what the report renders."""

    schema_version: Literal[1] = SCHEMA_VERSION
    baseline_cell: str | None
    kpis: list[str]
    options: AnalysisOptions
    cells: list[CellInfo]
    stats: list[CellStats]
    comparisons: list[Comparison]
    warnings: list[AnalysisWarning]
