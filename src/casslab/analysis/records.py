"""Typed records of the analysis: per-trial KPIs in, per-cell statistics and comparisons out.

Every record is a frozen pydantic model that forbids unknown fields. The KPI catalogue
(:data:`KPI_CATALOGUE`) is the one place that says, for each KPI name, its unit, whether a
larger value is better, worse, or neither, and what it means. Names say the unit
(``latency_p99_ms``, ``disk_write_mb_s``); a per-operation KPI is ``<operation>.<kpi>``
(``read.latency_p99_ms``) for the operation names the engine reports.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Literal

from pydantic import Field, field_validator

from casslab.errors import AnalysisError
from casslab.record import Record

SCHEMA_VERSION: Literal[1] = 1


# ---------------------------------------------------------------- the KPI catalogue


class Direction(StrEnum):
    """Which way a KPI should move for the change to be an improvement."""

    HIGHER_IS_BETTER = "higher_is_better"
    LOWER_IS_BETTER = "lower_is_better"
    NEUTRAL = "neutral"  # not a goal: a change is reported, never called better or worse


class KpiSpec(Record):
    """What one KPI is: its unit, its direction and a one-line help."""

    name: str
    unit: str
    direction: Direction
    help: str
    per_operation: bool = False  # also reported per operation type as "<op>.<name>"
    per_node: bool = False  # also reported per Cassandra node as "node<N>.<name>"


def _spec(
    name: str,
    unit: str,
    direction: Direction,
    help_text: str,
    per_op: bool = False,
    per_node: bool = False,
) -> KpiSpec:
    return KpiSpec(
        name=name,
        unit=unit,
        direction=direction,
        help=help_text,
        per_operation=per_op,
        per_node=per_node,
    )


NODE_KPI = re.compile(r"node([1-9][0-9]*)")
"""The prefix of a per-node KPI, ``node<N>.<kpi>``: N counts the nodes from 1 in address
order (node N of a local cluster is the one casslab numbered N)."""


def node_kpi(number: int, kpi: str) -> str:
    """The name of KPI ``kpi`` of node ``number``: ``node2.cassandra_cpu_pct``."""
    return f"node{number}.{kpi}"


_CORE = "% of ONE core (200 = two cores busy, as top shows a process)"


_H = Direction.HIGHER_IS_BETTER
_L = Direction.LOWER_IS_BETTER
_N = Direction.NEUTRAL

KPI_CATALOGUE: dict[str, KpiSpec] = {
    spec.name: spec
    for spec in (
        _spec("op_rate", "ops/s", _H, "operations completed per second", per_op=True),
        _spec(
            "latency_mean_ms",
            "ms",
            _L,
            "mean response time (from the intended start: includes queueing)",
            per_op=True,
        ),
        _spec("latency_p50_ms", "ms", _L, "median response time", per_op=True),
        _spec("latency_p95_ms", "ms", _L, "95th percentile response time", per_op=True),
        _spec("latency_p99_ms", "ms", _L, "99th percentile response time", per_op=True),
        _spec("latency_p999_ms", "ms", _L, "99.9th percentile response time", per_op=True),
        _spec("latency_max_ms", "ms", _L, "largest response time", per_op=True),
        _spec("errors", "count", _L, "operations that failed after retries", per_op=True),
        _spec(
            "cpu_busy_pct",
            "%",
            _N,
            "CPU busy (not idle, not iowait) share of the host, mean over the window; "
            "a resource, not a goal",
        ),
        _spec("memory_used_mib", "MiB", _N, "memory used on the host, mean over the window"),
        _spec("memory_used_mib_max", "MiB", _N, "memory used on the host, largest sample"),
        _spec("disk_write_mb_s", "MB/s", _N, "disk write throughput, mean over the window"),
        _spec(
            "bytes_compacted",
            "bytes",
            _N,
            "bytes compacted during the window, all nodes; work done, not a goal",
        ),
        _spec(
            "compactions_completed",
            "count",
            _N,
            "compactions completed during the window, all nodes",
        ),
        _spec(
            "compactions_pending",
            "count",
            _N,
            "pending compactions, mean over the window, summed over nodes; a growing "
            "backlog means compaction falls behind",
        ),
        _spec(
            "compactions_pending_max",
            "count",
            _N,
            "pending compactions, largest sample on any node",
        ),
        _spec("sstables", "count", _N, "live SSTables, mean over the window, all nodes"),
        _spec("sstables_max", "count", _N, "live SSTables, largest sample on any node"),
        # CPU by whom, all in % of one core so they add up: host = cassandra + engine + other
        _spec(
            "host_cpu_pct",
            "%",
            _N,
            f"CPU the host used (its processes and kernel: not idle, iowait or steal), "
            f"{_CORE}; mean over the window. Counted from idle time over wall time, so it "
            "adds up with the processes' CPU; cpu_busy_pct is the sar-style tick share",
        ),
        _spec(
            "cassandra_cpu_pct",
            "%",
            _N,
            f"CPU of the Cassandra JVMs (user + system), {_CORE}; mean over the window, "
            "summed over nodes",
            per_node=True,
        ),
        _spec(
            "cassandra_cpu_user_pct",
            "%",
            _N,
            f"CPU of the Cassandra JVMs in user mode, {_CORE}; mean, summed over nodes",
            per_node=True,
        ),
        _spec(
            "cassandra_cpu_system_pct",
            "%",
            _N,
            f"CPU of the Cassandra JVMs in kernel mode, {_CORE}; mean, summed over nodes",
            per_node=True,
        ),
        _spec(
            "engine_cpu_pct",
            "%",
            _N,
            f"CPU of the load engine (user + system), {_CORE}; mean over the window",
        ),
        _spec("engine_cpu_user_pct", "%", _N, f"CPU of the load engine in user mode, {_CORE}"),
        _spec("engine_cpu_system_pct", "%", _N, f"CPU of the load engine in kernel mode, {_CORE}"),
        _spec(
            "other_cpu_pct",
            "%",
            _N,
            f"CPU busy on the host that is neither Cassandra nor the engine, {_CORE}: "
            "host_cpu_pct - cassandra_cpu_pct - engine_cpu_pct (the lab, the kernel, other "
            "tenants); only meaningful when nodes and engine share one host",
        ),
        _spec(
            "gc_pause_ms",
            "ms",
            _N,
            "time the Cassandra JVMs spent in stop-the-world GC pauses during the window, "
            "summed over nodes",
            per_node=True,
        ),
        _spec(
            "cassandra_disk_write_bytes_per_s",
            "B/s",
            _N,
            "bytes the Cassandra JVMs caused to be written to storage per second "
            "(/proc/PID/io write_bytes), mean over the window, summed over nodes; "
            "disk_write_mb_s is the whole device",
            per_node=True,
        ),
        _spec(
            "cassandra_rss_bytes",
            "bytes",
            _N,
            "resident memory of the Cassandra JVMs, mean over the window, summed over nodes",
            per_node=True,
        ),
        _spec("engine_rss_bytes", "bytes", _N, "resident memory of the load engine, mean"),
    )
}


DEFAULT_KPIS = ("op_rate", "latency_mean_ms", "latency_p99_ms", "errors")
"""The KPIs an experiment reports when its file names none."""


def kpi_spec(name: str) -> KpiSpec:
    """The catalogue entry of a KPI name, including per-operation names (``read.op_rate``).

    Raises :class:`~casslab.errors.AnalysisError` naming the KPI and the known names when
    it is not in the catalogue.
    """
    spec = KPI_CATALOGUE.get(name)
    if spec is not None:
        return spec
    operation, _, base = name.rpartition(".")
    base_spec = KPI_CATALOGUE.get(base)
    if operation and base_spec is not None and base_spec.per_operation:
        return KpiSpec(
            name=name,
            unit=base_spec.unit,
            direction=base_spec.direction,
            help=f"{operation} operations: {base_spec.help}",
            per_operation=True,
        )
    node = NODE_KPI.fullmatch(operation)
    if node is not None and base_spec is not None and base_spec.per_node:
        return KpiSpec(
            name=name,
            unit=base_spec.unit,
            direction=base_spec.direction,
            help=f"node {node.group(1)}: {base_spec.help.replace(', summed over nodes', '')}",
            per_node=True,
        )
    per_op = sorted(s.name for s in KPI_CATALOGUE.values() if s.per_operation)
    per_node = sorted(s.name for s in KPI_CATALOGUE.values() if s.per_node)
    raise AnalysisError(
        f"unknown KPI {name!r}: use one of {sorted(KPI_CATALOGUE)}, '<operation>.<kpi>' "
        f"with <kpi> one of {per_op}, or 'node<N>.<kpi>' with <kpi> one of {per_node}"
    )


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
    p_value: float | None  # raw two-sided Welch p-value
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
