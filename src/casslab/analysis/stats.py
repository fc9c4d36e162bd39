"""Descriptive statistics of one KPI per cell: n, mean, SD, variance, SE, Student-t CI, RMSE, CV.

Definitions (``x_1 .. x_n`` the values of one KPI over the iterations of one cell; missing
values are left out and counted in ``n_missing``):

* mean ``x̄ = Σ x_i / n``
* SD ``s = sqrt(Σ (x_i - x̄)² / (n - 1))`` (sample standard deviation, Bessel-corrected)
* variance ``s² = Σ (x_i - x̄)² / (n - 1)`` (sample variance, the unbiased estimator; in
  the KPI's unit squared)
* standard error ``se = s / sqrt(n)``
* confidence interval ``x̄ ± t_{(1+c)/2, n-1} · se`` with ``t`` the Student t quantile and
  ``c`` the confidence level (Student 1908; e.g. Montgomery, *Design and Analysis of
  Experiments*, §2.4). It needs ``n >= 2``: with one iteration there is no estimate of
  the spread, and the interval is *undetermined* (``None`` and a reason), never zero-width.
* RMSE ``sqrt(Σ (x_i - x̄)² / n)``: the root-mean-square error of the iterations about
  the cell mean (divisor ``n``, i.e. the population SD of the sample). It is the "error"
  figure the studies reported; it is not a confidence interval and says nothing about
  the uncertainty of the mean.
* coefficient of variation ``cv = s / |x̄|`` (a fraction, not a percentage); undefined
  when the mean is zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from scipy import stats as scipy_stats

from casslab.analysis.analysis_records import CellStats, ConfidenceInterval, TrialKpis, kpi_spec
from casslab.errors import AnalysisError

STUDENT_T_METHOD = "Student t: mean ± t(1-(1-c)/2, n-1) · s/√n"


def t_quantile(confidence: float, df: float) -> float:
    """The two-sided Student t critical value ``t_{(1+confidence)/2, df}``."""
    return float(scipy_stats.t.ppf(0.5 + confidence / 2.0, df))


def describe(
    values: Sequence[float | None],
    *,
    cell_id: str,
    kpi: str,
    confidence: float = 0.95,
) -> CellStats:
    """Statistics of the values of one KPI in one cell (see the module docstring)."""
    if not 0.0 < confidence < 1.0:
        raise AnalysisError(
            f"describe {kpi!r} of cell {cell_id!r}: confidence {confidence} is not in (0, 1); "
            "use e.g. 0.95"
        )
    present = [float(v) for v in values if v is not None]
    for value in present:
        if not math.isfinite(value):
            raise AnalysisError(
                f"describe {kpi!r} of cell {cell_id!r}: value {value} is not finite; "
                "record a missing value as None"
            )
    unit = kpi_spec(kpi).unit
    n = len(present)
    n_missing = len(values) - n
    if n == 0:
        return CellStats(
            cell_id=cell_id,
            kpi=kpi,
            unit=unit,
            n=0,
            n_missing=n_missing,
            mean=None,
            sd=None,
            var=None,
            se=None,
            ci=None,
            ci_undetermined_reason="no iteration measured this KPI",
            rmse=None,
            cv=None,
            min=None,
            max=None,
            median=None,
        )
    x = np.asarray(present, dtype=float)
    constant = bool(np.all(x == x[0]))
    # identical values: exact mean and zero spread, not rounding noise of order 1e-17
    mean = float(x[0]) if constant else float(np.mean(x))
    rmse = 0.0 if constant else float(np.sqrt(np.mean((x - mean) ** 2)))
    sd: float | None = None
    var: float | None = None
    se: float | None = None
    cv: float | None = None
    ci: ConfidenceInterval | None = None
    reason: str | None = None
    if n >= 2:
        var = 0.0 if constant else float(np.var(x, ddof=1))
        sd = math.sqrt(var)
        se = sd / math.sqrt(n)
        half = t_quantile(confidence, n - 1) * se
        ci = ConfidenceInterval(
            level=confidence, low=mean - half, high=mean + half, method=STUDENT_T_METHOD
        )
        cv = sd / abs(mean) if mean != 0.0 else None
    else:
        reason = "n=1: a confidence interval needs at least 2 iterations"
    return CellStats(
        cell_id=cell_id,
        kpi=kpi,
        unit=unit,
        n=n,
        n_missing=n_missing,
        mean=mean,
        sd=sd,
        var=var,
        se=se,
        ci=ci,
        ci_undetermined_reason=reason,
        rmse=rmse,
        cv=cv,
        min=float(np.min(x)),
        max=float(np.max(x)),
        median=float(np.median(x)),
    )


def values_by_cell(trials: Iterable[TrialKpis], kpi: str) -> dict[str, list[float | None]]:
    """The values of one KPI per cell, cells in order of first appearance.

    A trial that lacks the KPI contributes ``None`` (missing), never zero.
    """
    out: dict[str, list[float | None]] = {}
    for trial in sorted(trials, key=lambda t: (t.cell_id, t.iteration, t.trial_id)):
        out.setdefault(trial.cell_id, []).append(trial.kpis.get(kpi))
    return out


def cell_order(trials: Iterable[TrialKpis]) -> list[str]:
    """Cell ids in order of first appearance."""
    seen: dict[str, None] = {}
    for trial in trials:
        seen.setdefault(trial.cell_id, None)
    return list(seen)


def cell_stats(
    trials: Sequence[TrialKpis], kpi: str, *, confidence: float = 0.95
) -> list[CellStats]:
    """Statistics of one KPI for every cell of ``trials``, cells in order of appearance."""
    by_cell = values_by_cell(trials, kpi)
    return [
        describe(by_cell[cell], cell_id=cell, kpi=kpi, confidence=confidence)
        for cell in cell_order(trials)
    ]
