"""The one path from two samples to a verdict, and the two front ends that use it."""

from __future__ import annotations

import pytest

from casslab.analysis import AnalysisOptions, TrialKpis, Verdict, compare_kpi, compare_series
from casslab.analysis.analysis_records import kpi_spec
from casslab.analysis.inference import SampleSummary
from casslab.analysis.verdict import contrast

OPTIONS = AnalysisOptions()


def test_a_significant_rise_of_a_higher_is_better_kpi_is_better() -> None:
    result = contrast(
        kpi_spec("op_rate"),
        SampleSummary(mean=100.0, var=4.0, n=5.0),
        SampleSummary(mean=110.0, var=4.0, n=5.0),
        OPTIONS,
        undetermined_reason=None,
        no_value_reason="unused",
    )
    assert result.verdict is Verdict.BETTER
    assert result.difference == pytest.approx(10.0)
    assert result.change_pct == pytest.approx(10.0)
    assert result.ratio.ratio == pytest.approx(1.1)
    assert result.p_value is not None
    assert result.p_value < 0.001


def test_without_a_sample_there_is_no_test_and_the_ratio_says_why() -> None:
    result = contrast(
        kpi_spec("latency_p99_ms"),
        None,
        SampleSummary(mean=2.0, var=0.1, n=3.0),
        OPTIONS,
        undetermined_reason=None,
        no_value_reason="a run has no value",
    )
    assert result.verdict is Verdict.UNDETERMINED
    assert result.welch is None
    assert result.p_value is None
    assert result.ratio.undetermined_reason == "a run has no value"


def test_an_undetermined_reason_wins_over_the_test() -> None:
    result = contrast(
        kpi_spec("op_rate"),
        SampleSummary(mean=100.0, var=4.0, n=5.0),
        SampleSummary(mean=200.0, var=4.0, n=5.0),
        OPTIONS,
        undetermined_reason="too few",
        no_value_reason="unused",
    )
    assert (result.verdict, result.verdict_reason) == (Verdict.UNDETERMINED, "too few")
    assert result.p_value is not None  # computed, but not the basis of a verdict


def test_cells_and_series_of_independent_values_get_the_same_answer() -> None:
    # alternating values: lag-1 autocorrelation < 0, so the series keeps n_eff = n and
    # both front ends summarise the same sample the same way
    base = [100.0, 104.0, 99.0, 103.0, 101.0, 105.0]
    cand = [104.0, 109.0, 103.0, 108.0, 105.0, 110.0]
    trials = [
        TrialKpis(trial_id=f"{cell}-{i}", cell_id=cell, iteration=i, kpis={"op_rate": v})
        for cell, values in (("a", base), ("b", cand))
        for i, v in enumerate(values)
    ]
    (cells,) = compare_kpi(trials, "op_rate", "a", OPTIONS)
    series = compare_series(base, cand, "op_rate", OPTIONS)
    assert series.baseline.n_effective == len(base)
    assert series.verdict is cells.verdict is Verdict.BETTER
    assert series.p_value == pytest.approx(cells.p_value)
    assert series.ratio.ci == cells.ratio.ci
