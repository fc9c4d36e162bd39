"""Effective sample size and the autocorrelation-corrected Welch test of two runs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from casslab.analysis import (
    Verdict,
    WarningCode,
    compare_series,
    effective_sample_size,
    lag1_autocorrelation,
    series_stats,
)
from casslab.errors import AnalysisError


@pytest.mark.parametrize(
    ("series", "r1"),
    [
        # centred -2 -1 0 1 2: (2 + 0 + 0 + 2) / 10
        ([1.0, 2.0, 3.0, 4.0, 5.0], 0.4),
        # centred -2 0 0 2: 0 / 8
        ([2.0, 4.0, 4.0, 6.0], 0.0),
        # centred -1.5 .5 -.5 1.5: (-.75 - .25 - .75) / 5
        ([1.0, 3.0, 2.0, 4.0], -0.35),
        ([3.0, 3.0, 3.0], None),  # constant
        ([1.0, 2.0], None),  # too short
    ],
)
def test_lag1_autocorrelation_by_hand(series: list[float], r1: float | None) -> None:
    got = lag1_autocorrelation(series)
    if r1 is None:
        assert got is None
    else:
        assert got == pytest.approx(r1)


@pytest.mark.parametrize(
    ("n", "r1", "n_eff"),
    [
        (5, 0.4, 5 * 0.6 / 1.4),
        (100, 0.5, 100 / 3),
        (100, -0.5, 100.0),  # negative correlation does not inflate n
        (100, None, 100.0),
        (10, 0.99, 1.0),  # floor of one independent observation
        (0, None, 0.0),
    ],
)
def test_effective_sample_size(n: int, r1: float | None, n_eff: float) -> None:
    assert effective_sample_size(n, r1) == pytest.approx(n_eff)


def ar1(n: int, phi: float, mean: float, sd: float, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    x = np.empty(n)
    x[0] = rng.normal(0.0, sd)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + rng.normal(0.0, sd)
    return [float(v) for v in mean + x]


def test_series_stats_and_gaps() -> None:
    stats = series_stats([1.0, None, 2.0, 3.0, 4.0, 5.0])
    assert (stats.n, stats.n_missing) == (5, 1)
    assert stats.lag1_autocorrelation == pytest.approx(0.4)
    assert stats.n_effective == pytest.approx(5 * 0.6 / 1.4)
    assert stats.se == pytest.approx(np.std([1, 2, 3, 4, 5], ddof=1) / np.sqrt(5 * 0.6 / 1.4))
    with pytest.raises(AnalysisError, match="NaN"):
        series_stats([1.0, float("nan")])


def test_corrected_welch_matches_scipy_with_effective_sizes_and_is_more_cautious() -> None:
    base = ar1(300, 0.8, 1000.0, 10.0, seed=1)
    cand = ar1(300, 0.8, 1004.0, 10.0, seed=2)
    result = compare_series(base, cand, "op_rate")
    assert result.welch is not None
    assert result.p_value is not None
    n_b, n_c = result.baseline.n_effective, result.candidate.n_effective
    assert n_b < 150  # phi = 0.8 -> about n / 9
    assert n_c < 150
    expected = scipy_stats.ttest_ind_from_stats(
        np.mean(cand),
        np.std(cand, ddof=1),
        n_c,
        np.mean(base),
        np.std(base, ddof=1),
        n_b,
        equal_var=False,
    )
    assert result.p_value == pytest.approx(float(expected.pvalue), rel=1e-9)
    naive = scipy_stats.ttest_ind(cand, base, equal_var=False).pvalue
    assert result.p_value > naive
    codes = {w.code for w in result.warnings}
    assert WarningCode.HIGH_AUTOCORRELATION in codes


def test_compare_series_verdicts() -> None:
    base = ar1(200, 0.3, 1000.0, 10.0, seed=3)
    faster = ar1(200, 0.3, 1100.0, 10.0, seed=4)
    assert compare_series(base, faster, "op_rate").verdict is Verdict.BETTER
    assert compare_series(base, faster, "latency_p99_ms").verdict is Verdict.WORSE
    assert compare_series(base, faster, "cpu_busy_pct").verdict is Verdict.CHANGED_UP
    short = compare_series([1.0], [2.0, 3.0, 4.0], "op_rate")
    assert short.verdict is Verdict.UNDETERMINED
    flat = compare_series([5.0] * 10, [5.0] * 10, "op_rate")
    assert flat.verdict is Verdict.UNDETERMINED
    empty = compare_series([None, None], [1.0, 2.0, 3.0], "op_rate")
    assert empty.verdict is Verdict.UNDETERMINED
    assert empty.ratio.ci is None
