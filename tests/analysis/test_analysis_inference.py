"""Welch, Fieller, effect sizes and Holm against scipy and hand-derived values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as scipy_stats

from casslab.analysis import (
    SampleSummary,
    effect_size,
    fieller_ratio,
    hedges_correction,
    holm_adjust,
    welch_test,
)


def summary(values: list[float]) -> SampleSummary:
    x = np.asarray(values)
    return SampleSummary(mean=float(x.mean()), var=float(x.var(ddof=1)), n=float(len(x)))


WELCH_CASES = [
    ([2330.0, 2365.0, 2355.0], [2340.0, 2372.0, 2362.0]),
    ([10.0, 12.0, 14.0], [14.0, 16.0, 18.0]),
    ([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 2.5, 3.1, 9.0]),
    ([100.0, 101.0], [110.0, 130.0, 125.0, 140.0, 90.0, 120.0]),
    ([5.0, 5.0, 5.0], [5.5, 6.5, 6.0]),  # one cell constant: still defined
]


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy, constant sample
@pytest.mark.parametrize(("base", "cand"), WELCH_CASES)
def test_welch_matches_scipy_ttest_ind(base: list[float], cand: list[float]) -> None:
    result = welch_test(summary(base), summary(cand))
    assert result is not None
    expected = scipy_stats.ttest_ind(cand, base, equal_var=False)
    assert result.t == pytest.approx(float(expected.statistic), rel=1e-10)
    assert result.p_value == pytest.approx(float(expected.pvalue), rel=1e-9)
    # Welch-Satterthwaite df, written out independently
    vb = np.var(base, ddof=1) / len(base)
    vc = np.var(cand, ddof=1) / len(cand)
    df = (vb + vc) ** 2 / (vb**2 / (len(base) - 1) + vc**2 / (len(cand) - 1))
    assert result.df == pytest.approx(df, rel=1e-10)
    diff = np.mean(cand) - np.mean(base)
    assert result.difference == pytest.approx(diff)
    half = scipy_stats.t.ppf(0.975, df) * math.sqrt(vb + vc)
    assert result.ci.low == pytest.approx(diff - half)
    assert result.ci.high == pytest.approx(diff + half)


@pytest.mark.parametrize(
    ("base", "cand"),
    [
        ([1.0], [1.0, 2.0]),  # n = 1
        ([3.0, 3.0], [4.0, 4.0]),  # no variance in either
    ],
)
def test_welch_undefined(base: list[float], cand: list[float]) -> None:
    b = SampleSummary(mean=float(np.mean(base)), var=float(np.var(base)), n=len(base))
    c = SampleSummary(mean=float(np.mean(cand)), var=float(np.var(cand)), n=len(cand))
    assert welch_test(b, c) is None


@pytest.mark.parametrize(
    ("base", "cand"),
    [
        ([10.0, 12.0, 14.0], [14.0, 16.0, 18.0]),
        ([2330.0, 2365.0, 2355.0], [2340.0, 2372.0, 2362.0]),
        ([1.0, 2.0, 3.0, 4.0, 5.0], [-2.0, -2.5, -3.1, -9.0]),
    ],
)
def test_fieller_interval_solves_the_pivot_equation(base: list[float], cand: list[float]) -> None:
    b, c = summary(base), summary(cand)
    estimate = fieller_ratio(b, c)
    assert estimate.ci is not None
    ratio = c.mean / b.mean
    assert estimate.ratio == pytest.approx(ratio)
    vb, vc = b.var / b.n, c.var / c.n
    spread = vc + ratio**2 * vb
    df = spread**2 / (vc**2 / (c.n - 1) + ratio**4 * vb**2 / (b.n - 1))
    t = scipy_stats.t.ppf(0.975, df)

    def pivot(r: float) -> float:
        return float((c.mean - r * b.mean) ** 2 - t**2 * (vc + r**2 * vb))

    low = optimize.brentq(pivot, ratio - 100 * abs(ratio) - 100, ratio)
    high = optimize.brentq(pivot, ratio, ratio + 100 * abs(ratio) + 100)
    assert estimate.ci.low == pytest.approx(low, rel=1e-8)
    assert estimate.ci.high == pytest.approx(high, rel=1e-8)
    assert estimate.ci.low < ratio < estimate.ci.high
    assert "Fieller" in estimate.ci.method


def test_fieller_close_to_delta_method_for_precise_means() -> None:
    b = SampleSummary(mean=1000.0, var=25.0, n=30)
    c = SampleSummary(mean=1100.0, var=36.0, n=30)
    estimate = fieller_ratio(b, c)
    assert estimate.ci is not None
    r = 1.1
    se = r * math.sqrt(36.0 / 30 / 1100.0**2 + 25.0 / 30 / 1000.0**2)
    assert estimate.ci.high - estimate.ci.low == pytest.approx(2 * 2.0 * se, rel=0.05)


@pytest.mark.parametrize(
    ("base", "cand", "reason"),
    [
        (SampleSummary(0.0, 1.0, 5), SampleSummary(1.0, 1.0, 5), "zero"),
        (SampleSummary(1.0, 100.0, 3), SampleSummary(2.0, 1.0, 3), "unbounded"),
        (SampleSummary(2.0, 0.0, 3), SampleSummary(4.0, 0.0, 3), "no variation"),
        (SampleSummary(2.0, 0.0, 1), SampleSummary(4.0, 1.0, 3), "at least 2"),
    ],
)
def test_fieller_undetermined(base: SampleSummary, cand: SampleSummary, reason: str) -> None:
    estimate = fieller_ratio(base, cand)
    assert estimate.ci is None
    assert estimate.undetermined_reason is not None
    assert reason in estimate.undetermined_reason


def test_effect_size_by_hand() -> None:
    # both SD 2, means 12 and 16: d = 2; m = 4, J = Γ(2) / (√2 Γ(1.5)) = 2 / √(2π)
    result = effect_size(summary([10.0, 12.0, 14.0]), summary([14.0, 16.0, 18.0]))
    assert result is not None
    assert result.cohens_d == pytest.approx(2.0)
    assert result.hedges_g == pytest.approx(2.0 * 2.0 / math.sqrt(2 * math.pi))
    unequal = effect_size(summary([1.0, 3.0]), summary([2.0, 6.0, 10.0]))
    assert unequal is not None
    # pooled var = (1*2 + 2*16) / 3 = 34/3, difference 6 - 2 = 4
    assert unequal.cohens_d == pytest.approx(4.0 / math.sqrt(34.0 / 3.0))


@pytest.mark.parametrize(
    ("df", "expected"),
    [
        (2.0, 1.0 / math.sqrt(math.pi)),
        (4.0, 2.0 / math.sqrt(2.0 * math.pi)),
        (200.0, 1.0 - 3.0 / (4.0 * 200.0 - 1.0)),  # Hedges' approximation, accurate at large df
    ],
)
def test_hedges_correction(df: float, expected: float) -> None:
    assert hedges_correction(df) == pytest.approx(expected, rel=1e-5)


def test_effect_size_undefined_without_spread() -> None:
    assert effect_size(SampleSummary(1.0, 0.0, 3), SampleSummary(2.0, 0.0, 3)) is None
    assert effect_size(SampleSummary(1.0, 0.0, 1), SampleSummary(2.0, 1.0, 2)) is None


@pytest.mark.parametrize(
    ("raw", "adjusted"),
    [
        ([0.01, 0.04, 0.03], [0.03, 0.06, 0.06]),
        ([0.01, 0.02, 0.03, 0.04], [0.04, 0.06, 0.06, 0.06]),
        ([0.5, None, 0.01], [0.5, None, 0.02]),
        ([0.6, 0.9], [1.0, 1.0]),
        ([], []),
    ],
)
def test_holm(raw: list[float | None], adjusted: list[float | None]) -> None:
    result = holm_adjust(raw)
    assert len(result) == len(adjusted)
    for got, want in zip(result, adjusted, strict=True):
        if want is None:
            assert got is None
        else:
            assert got == pytest.approx(want)
