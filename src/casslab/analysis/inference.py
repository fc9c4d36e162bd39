"""Two-sample inference from summary statistics: Welch's t-test, Fieller's ratio interval,
Cohen's d / Hedges' g, and Holm's step-down adjustment.

Pure functions of means, variances and sample sizes; :mod:`casslab.analysis.compare` feeds
them the iterations of two cells, :mod:`casslab.analysis.autocorr` the per-second series of
two runs with an effective sample size. ``n`` may be fractional (an effective sample size).

Methods:

* **Welch's t-test** (Welch 1947, *Biometrika* 34:28-35): ``t = (x̄_c - x̄_b) / se`` with
  ``se² = s_c²/n_c + s_b²/n_b`` and the Welch-Satterthwaite degrees of freedom
  ``df = se⁴ / ((s_c²/n_c)²/(n_c-1) + (s_b²/n_b)²/(n_b-1))``; two-sided p-value from the
  Student t distribution. Same as ``scipy.stats.ttest_ind(equal_var=False)``.
* **Fieller's theorem** (Fieller 1954, *J. R. Stat. Soc. B* 16:175-185) for the ratio of
  two independent means ``R = μ_c / μ_b``: the interval is the set of ``R`` with
  ``(x̄_c - R x̄_b)² <= t² (v_c + R² v_b)`` (``v = s²/n``), using the Welch-Satterthwaite
  degrees of freedom of ``x̄_c - R x̄_b`` evaluated at the point estimate. It is bounded
  only when the baseline mean is significantly non-zero (``g = t² v_b / x̄_b² < 1``);
  otherwise the ratio's interval is undetermined.
* **Cohen's d** with the pooled SD ``s_p = sqrt(((n_b-1)s_b² + (n_c-1)s_c²)/(n_b+n_c-2))``
  and **Hedges' g** ``= J·d`` with the exact small-sample factor
  ``J = Γ(m/2) / (sqrt(m/2) Γ((m-1)/2))``, ``m = n_b + n_c - 2`` (Hedges 1981,
  *J. Educ. Stat.* 6:107-128).
* **Holm** (1979, *Scand. J. Stat.* 6:65-70) step-down adjusted p-values:
  ``p̃_(i) = max_{j<=i} min(1, (m - j + 1) p_(j))`` over the ``m`` determined p-values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from scipy import special as scipy_special
from scipy import stats as scipy_stats

from casslab.analysis.analysis_records import (
    FIELLER_METHOD,
    ConfidenceInterval,
    EffectSize,
    RatioEstimate,
    WelchTest,
)

WELCH_METHOD = "Welch's t-test (Welch-Satterthwaite df), two-sided"
EFFECT_METHOD = "Cohen's d with pooled SD; Hedges' g with exact gamma-function correction"


class SampleSummary(NamedTuple):
    """Mean, sample variance (divisor n - 1) and (effective) size of one sample."""

    mean: float
    var: float
    n: float


def _t_crit(confidence: float, df: float) -> float:
    return float(scipy_stats.t.ppf(0.5 + confidence / 2.0, df))


def welch_test(
    baseline: SampleSummary, candidate: SampleSummary, *, confidence: float = 0.95
) -> WelchTest | None:
    """Welch's t-test of candidate minus baseline; ``None`` when it is undefined.

    Undefined when either ``n < 2`` or both variances are zero (no observed spread: the
    statistic divides by zero).
    """
    if baseline.n < 2 or candidate.n < 2:
        return None
    v_b = baseline.var / baseline.n
    v_c = candidate.var / candidate.n
    se2 = v_b + v_c
    if se2 <= 0.0:
        return None
    se = math.sqrt(se2)
    difference = candidate.mean - baseline.mean
    df = se2**2 / (v_c**2 / (candidate.n - 1) + v_b**2 / (baseline.n - 1))
    t = difference / se
    p_value = float(2.0 * scipy_stats.t.sf(abs(t), df))
    half = _t_crit(confidence, df) * se
    return WelchTest(
        difference=difference,
        se=se,
        t=t,
        df=df,
        p_value=min(1.0, p_value),
        ci=ConfidenceInterval(
            level=confidence,
            low=difference - half,
            high=difference + half,
            method=WELCH_METHOD,
        ),
        method=WELCH_METHOD,
    )


def fieller_ratio(
    baseline: SampleSummary, candidate: SampleSummary, *, confidence: float = 0.95
) -> RatioEstimate:
    """Candidate mean / baseline mean with Fieller's confidence interval (module docstring)."""
    if baseline.mean == 0.0:
        return RatioEstimate(ratio=None, ci=None, undetermined_reason="the baseline mean is zero")
    ratio = candidate.mean / baseline.mean
    if baseline.n < 2 or candidate.n < 2:
        return RatioEstimate(
            ratio=ratio,
            ci=None,
            undetermined_reason="a confidence interval needs at least 2 iterations per cell",
        )
    v_b = baseline.var / baseline.n
    v_c = candidate.var / candidate.n
    spread = v_c + ratio**2 * v_b
    if spread <= 0.0:
        return RatioEstimate(
            ratio=ratio,
            ci=None,
            undetermined_reason="no variation in either cell: the interval is not defined",
        )
    df = spread**2 / (v_c**2 / (candidate.n - 1) + ratio**4 * v_b**2 / (baseline.n - 1))
    t = _t_crit(confidence, df)
    a, b = candidate.mean, baseline.mean
    denominator = b * b - t * t * v_b
    if denominator <= 0.0:
        return RatioEstimate(
            ratio=ratio,
            ci=None,
            undetermined_reason=(
                "the baseline mean is not significantly different from zero, so Fieller's "
                "interval is unbounded"
            ),
        )
    root = t * math.sqrt(max(0.0, v_c * b * b + v_b * a * a - t * t * v_c * v_b))
    low = (a * b - root) / denominator
    high = (a * b + root) / denominator
    return RatioEstimate(
        ratio=ratio,
        ci=ConfidenceInterval(level=confidence, low=low, high=high, method=FIELLER_METHOD),
        undetermined_reason=None,
    )


def hedges_correction(df: float) -> float:
    """Exact small-sample factor ``J(df) = Γ(df/2) / (sqrt(df/2) Γ((df-1)/2))``."""
    log_j = (
        scipy_special.gammaln(df / 2.0)
        - 0.5 * math.log(df / 2.0)
        - scipy_special.gammaln((df - 1.0) / 2.0)
    )
    return float(math.exp(log_j))


def effect_size(baseline: SampleSummary, candidate: SampleSummary) -> EffectSize | None:
    """Cohen's d and Hedges' g of candidate minus baseline; ``None`` when undefined.

    Undefined when ``n_b + n_c - 2 < 2`` or the pooled SD is zero.
    """
    df = baseline.n + candidate.n - 2.0
    if baseline.n < 2 or candidate.n < 2 or df < 2:
        return None
    pooled_var = ((baseline.n - 1) * baseline.var + (candidate.n - 1) * candidate.var) / df
    if pooled_var <= 0.0:
        return None
    d = (candidate.mean - baseline.mean) / math.sqrt(pooled_var)
    return EffectSize(cohens_d=d, hedges_g=d * hedges_correction(df), method=EFFECT_METHOD)


def holm_adjust(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm step-down adjusted p-values, in the input order; ``None`` stays ``None``."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(present)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[index] = running
    return adjusted
