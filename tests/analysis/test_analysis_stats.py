"""Per-cell descriptive statistics, checked against hand computations and t tables."""

from __future__ import annotations

import math

import pytest

from casslab.analysis import TrialKpis, cell_stats, describe
from casslab.errors import AnalysisError

# Two-sided 95% Student t critical values t(0.975, df) from a printed table.
T975 = {1: 12.706204736, 2: 4.302652730, 4: 2.776445105, 9: 2.262157163}


@pytest.mark.parametrize(
    ("values", "mean", "sd", "rmse", "median", "df"),
    [
        # mean 12, deviations -2 0 2: SD = sqrt(8/2) = 2, RMSE = sqrt(8/3)
        ([10.0, 12.0, 14.0], 12.0, 2.0, math.sqrt(8 / 3), 12.0, 2),
        # deviations -1 1: SD = sqrt(2/1), RMSE = 1
        ([4.0, 6.0], 5.0, math.sqrt(2.0), 1.0, 5.0, 1),
        # mean 3, squares 4 1 0 1 4 = 10: SD = sqrt(10/4), RMSE = sqrt(10/5)
        ([5.0, 1.0, 3.0, 2.0, 4.0], 3.0, math.sqrt(2.5), math.sqrt(2.0), 3.0, 4),
        # ten iterations 2341..2359 step 2 -> mean 2350, squares sum 2*(1+9+25+49+81)=330
        (
            [2341.0 + 2 * i for i in range(10)],
            2350.0,
            math.sqrt(330 / 9),
            math.sqrt(33.0),
            2350.0,
            9,
        ),
    ],
)
def test_describe_matches_hand_computation(
    values: list[float], mean: float, sd: float, rmse: float, median: float, df: int
) -> None:
    stats = describe(values, cell_id="c", kpi="op_rate")
    n = len(values)
    se = sd / math.sqrt(n)
    half = T975[df] * se
    assert stats.n == n
    assert stats.n_missing == 0
    assert stats.mean == pytest.approx(mean)
    assert stats.sd == pytest.approx(sd)
    assert stats.var == pytest.approx(sd**2)  # the sample variance beside the SD: 4, 2, 2.5, 330/9
    assert stats.se == pytest.approx(se)
    assert stats.rmse == pytest.approx(rmse)
    assert stats.cv == pytest.approx(sd / mean)
    assert stats.median == pytest.approx(median)
    assert stats.min == min(values)
    assert stats.max == max(values)
    assert stats.ci is not None
    assert stats.ci.level == 0.95
    assert stats.ci.low == pytest.approx(mean - half, rel=1e-8)
    assert stats.ci.high == pytest.approx(mean + half, rel=1e-8)
    assert "Student t" in stats.ci.method
    assert stats.ci_undetermined_reason is None
    assert stats.unit == "ops/s"


def test_ninety_percent_interval_uses_its_own_quantile() -> None:
    # t(0.95, 2) = 2.919985580 from the table
    stats = describe([10.0, 12.0, 14.0], cell_id="c", kpi="op_rate", confidence=0.90)
    assert stats.ci is not None
    assert stats.ci.high - 12.0 == pytest.approx(2.919985580 * 2.0 / math.sqrt(3), rel=1e-8)


def test_single_iteration_has_undetermined_not_zero_width_interval() -> None:
    stats = describe([2350.0], cell_id="c", kpi="op_rate")
    assert stats.n == 1
    assert stats.mean == 2350.0
    assert stats.ci is None
    assert stats.ci_undetermined_reason is not None
    assert "n=1" in stats.ci_undetermined_reason
    assert stats.sd is None
    assert stats.var is None
    assert stats.se is None
    assert stats.cv is None
    assert stats.rmse == 0.0


def test_no_values_and_missing_values() -> None:
    empty = describe([None, None], cell_id="c", kpi="bytes_compacted")
    assert (empty.n, empty.n_missing, empty.mean, empty.ci) == (0, 2, None, None)
    assert empty.ci_undetermined_reason is not None
    partial = describe([10.0, None, 14.0], cell_id="c", kpi="op_rate")
    assert (partial.n, partial.n_missing, partial.mean) == (2, 1, 12.0)


def test_constant_values_give_zero_spread_and_undefined_cv_at_zero_mean() -> None:
    constant = describe([7.0, 7.0, 7.0], cell_id="c", kpi="sstables")
    assert (constant.sd, constant.var, constant.cv, constant.rmse) == (0.0, 0.0, 0.0, 0.0)
    zero_mean = describe([-1.0, 1.0], cell_id="c", kpi="op_rate")
    assert zero_mean.cv is None


def test_non_finite_values_and_bad_confidence_are_errors() -> None:
    with pytest.raises(AnalysisError, match="not finite"):
        describe([1.0, math.inf], cell_id="c", kpi="op_rate")
    with pytest.raises(AnalysisError, match="confidence"):
        describe([1.0, 2.0], cell_id="c", kpi="op_rate", confidence=95)


def test_cell_stats_groups_trials_and_counts_missing_kpi() -> None:
    trials = [
        TrialKpis(trial_id="a1", cell_id="a", iteration=1, kpis={"op_rate": 12.0}),
        TrialKpis(trial_id="b0", cell_id="b", iteration=0, kpis={"op_rate": 1.0}),
        TrialKpis(trial_id="a0", cell_id="a", iteration=0, kpis={"op_rate": 10.0}),
        TrialKpis(trial_id="a2", cell_id="a", iteration=2, kpis={}),
    ]
    by_cell = {s.cell_id: s for s in cell_stats(trials, "op_rate")}
    assert [s.cell_id for s in cell_stats(trials, "op_rate")] == ["a", "b"]
    assert (by_cell["a"].n, by_cell["a"].n_missing, by_cell["a"].mean) == (2, 1, 11.0)
    assert (by_cell["b"].n, by_cell["b"].ci) == (1, None)
