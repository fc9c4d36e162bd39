"""Comparing two single runs through their per-interval series, corrected for autocorrelation.

Per-second samples of one run are not independent: a compaction or a GC pause slows several
consecutive seconds. Treating ``n`` seconds as ``n`` independent observations makes the
standard error too small and every difference "significant". As latte does for comparing
two runs, the Welch test here uses an *effective* sample size.

Method: the lag-1 (AR(1)) approximation of the variance inflation of a mean,
``n_eff = n (1 - r1) / (1 + r1)`` (Bayley & Hammersley 1946, *J. R. Stat. Soc. Suppl.*
8:184-197; Wilks, *Statistical Methods in the Atmospheric Sciences*, 3rd ed., eq. 5.12),
with the lag-1 autocorrelation ``r1 = Σ_{t<n} (x_t - x̄)(x_{t+1} - x̄) / Σ_t (x_t - x̄)²``.
A negative ``r1`` is not allowed to inflate ``n`` (``n_eff <= n``), and ``n_eff >= 1``.
The Welch test (:func:`casslab.analysis.inference.welch_test`) then uses ``s²/n_eff`` as the
squared standard error and ``n_eff - 1`` in the Welch-Satterthwaite degrees of freedom.
(latte's current estimator uses batch means; the lag-1 form is simpler and exact for an
AR(1) process.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from casslab.analysis.analysis_records import (
    AnalysisOptions,
    AnalysisWarning,
    Direction,
    RatioEstimate,
    Verdict,
    WarningCode,
    WelchTest,
    kpi_spec,
)
from casslab.analysis.inference import SampleSummary
from casslab.analysis.verdict import contrast
from casslab.errors import AnalysisError
from casslab.record import Record

ESS_METHOD = "lag-1 autocorrelation (AR(1)): n_eff = n (1 - r1) / (1 + r1)"


class SeriesStats(Record):
    """One run's series of one KPI: size, mean, SD and the effective sample size."""

    n: int  # intervals with a value
    n_missing: int
    mean: float | None
    sd: float | None  # sample SD (divisor n - 1)
    lag1_autocorrelation: float | None
    n_effective: float
    se: float | None  # sd / sqrt(n_effective)
    method: str = ESS_METHOD


class SeriesComparison(Record):
    """Candidate run against baseline run on one KPI's interval series."""

    kpi: str
    unit: str
    direction: Direction
    baseline: SeriesStats
    candidate: SeriesStats
    difference: float | None
    change_pct: float | None
    ratio: RatioEstimate
    welch: WelchTest | None
    p_value: float | None
    alpha: float
    verdict: Verdict
    verdict_reason: str
    warnings: list[AnalysisWarning]


def lag1_autocorrelation(series: Sequence[float]) -> float | None:
    """``r1`` of the module docstring; ``None`` for fewer than 3 values or a constant series."""
    if len(series) < 3:
        return None
    x = np.asarray(series, dtype=float)
    centred = x - float(np.mean(x))
    denominator = float(np.sum(centred * centred))
    if denominator == 0.0:
        return None
    return float(np.sum(centred[:-1] * centred[1:])) / denominator


def effective_sample_size(n: int, r1: float | None) -> float:
    """``n (1 - r1) / (1 + r1)``, kept within ``[1, n]``; ``n`` when ``r1`` is unknown."""
    if n <= 0:
        return 0.0
    if r1 is None or r1 <= 0.0:
        return float(n)
    return max(1.0, min(float(n), n * (1.0 - r1) / (1.0 + r1)))


def series_stats(series: Sequence[float | None]) -> SeriesStats:
    """Mean, SD, ``r1`` and ``n_eff`` of a series; ``None`` entries are gaps, dropped."""
    present = [float(v) for v in series if v is not None]
    if any(not np.isfinite(v) for v in present):
        raise AnalysisError(
            "series statistics: the series has a NaN or infinite value; record gaps as None"
        )
    n = len(present)
    missing = len(series) - n
    if n == 0:
        return SeriesStats(
            n=0,
            n_missing=missing,
            mean=None,
            sd=None,
            lag1_autocorrelation=None,
            n_effective=0.0,
            se=None,
        )
    x = np.asarray(present, dtype=float)
    r1 = lag1_autocorrelation(present)
    n_eff = effective_sample_size(n, r1)
    sd = float(np.std(x, ddof=1)) if n >= 2 else None
    return SeriesStats(
        n=n,
        n_missing=missing,
        mean=float(np.mean(x)),
        sd=sd,
        lag1_autocorrelation=r1,
        n_effective=n_eff,
        se=sd / float(np.sqrt(n_eff)) if sd is not None else None,
    )


def _summary(stats: SeriesStats) -> SampleSummary | None:
    if stats.mean is None:
        return None
    var = stats.sd**2 if stats.sd is not None else 0.0
    return SampleSummary(mean=stats.mean, var=var, n=stats.n_effective)


def _undetermined(baseline: SeriesStats, candidate: SeriesStats) -> str | None:
    for label, stats in (("baseline", baseline), ("candidate", candidate)):
        if stats.n == 0:
            return f"the {label} run has no value of this KPI"
        if stats.n_effective < 2.0:
            return (
                f"the {label} run has an effective sample size of {stats.n_effective:.2g} "
                f"(n={stats.n}); it needs at least 2: measure longer"
            )
    if baseline.sd == 0.0 and candidate.sd == 0.0:
        return "neither series varies: Welch's t-test is undefined"
    return None


def _autocorr_warning(label: str, kpi: str, stats: SeriesStats) -> AnalysisWarning | None:
    if stats.n == 0 or stats.n_effective >= 0.5 * stats.n:
        return None
    return AnalysisWarning(
        code=WarningCode.HIGH_AUTOCORRELATION,
        message=(
            f"{kpi} of the {label} run: lag-1 autocorrelation "
            f"{stats.lag1_autocorrelation or 0.0:.2f} leaves {stats.n_effective:.1f} "
            f"effective of {stats.n} intervals; repeat the run for firmer conclusions"
        ),
        cell_id=label,
        kpi=kpi,
    )


def compare_series(
    baseline: Sequence[float | None],
    candidate: Sequence[float | None],
    kpi: str,
    options: AnalysisOptions = AnalysisOptions(),
) -> SeriesComparison:
    """Welch test of two runs' interval series of ``kpi`` with effective sample sizes."""
    spec = kpi_spec(kpi)
    base_stats = series_stats(baseline)
    cand_stats = series_stats(candidate)
    result = contrast(
        spec,
        _summary(base_stats),
        _summary(cand_stats),
        options,
        undetermined_reason=_undetermined(base_stats, cand_stats),
        no_value_reason="a run has no value",
    )
    warnings = [
        w
        for w in (
            _autocorr_warning("baseline", kpi, base_stats),
            _autocorr_warning("candidate", kpi, cand_stats),
        )
        if w is not None
    ]
    return SeriesComparison(
        kpi=kpi,
        unit=spec.unit,
        direction=spec.direction,
        baseline=base_stats,
        candidate=cand_stats,
        **result.fields(),
        alpha=options.alpha,
        warnings=warnings,
    )
