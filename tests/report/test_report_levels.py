"""Bars per factor level (main effects) for runs with two or more factors."""

from __future__ import annotations

import statistics

import pytest
from scipy import stats as scipy_stats

from casslab.analysis import TrialKpis
from casslab.report.figures import level_bar_figure

# A 2x2 factorial, 2 iterations per cell: (compaction, threads) -> op_rate values.
RUNS = {
    ("STCS", "16"): [1000.0, 1100.0],
    ("STCS", "64"): [1500.0, 1400.0],
    ("LCS", "16"): [900.0, 950.0],
    ("LCS", "64"): [1300.0, 1250.0],
}


def _trials() -> list[TrialKpis]:
    trials = []
    for (compaction, threads), values in RUNS.items():
        cell = f"compaction={compaction},threads={threads}"
        for iteration, value in enumerate(values, start=1):
            trials.append(
                TrialKpis(
                    trial_id=f"{cell}/{iteration}",
                    cell_id=cell,
                    iteration=iteration,
                    factors={"compaction": compaction, "threads": threads},
                    kpis={"op_rate": value},
                )
            )
    return trials


def test_each_level_pools_the_trials_of_every_cell_at_that_level() -> None:
    cells = [f"compaction={c},threads={t}" for c, t in RUNS]
    figure = level_bar_figure(_trials(), "op_rate", cells)
    assert figure is not None
    bars = {s.x[0]: s for s in figure.series}
    assert list(bars) == ["compaction=STCS", "compaction=LCS", "threads=16", "threads=64"]
    pooled = {
        "compaction=STCS": [1000.0, 1100.0, 1500.0, 1400.0],
        "compaction=LCS": [900.0, 950.0, 1300.0, 1250.0],
        "threads=16": [1000.0, 1100.0, 900.0, 950.0],
        "threads=64": [1500.0, 1400.0, 1300.0, 1250.0],
    }
    for label, values in pooled.items():
        bar = bars[label]
        mean = statistics.fmean(values)
        half = scipy_stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / 2.0
        assert bar.y == [pytest.approx(mean)]
        assert bar.error_low == [pytest.approx(half)]
        assert bar.error_high == [pytest.approx(half)]
    assert {s.color for s in figure.series if s.group == "compaction"} != {
        s.color for s in figure.series if s.group == "threads"
    }


def test_one_factor_runs_get_no_level_figure() -> None:
    trials = [
        t.model_copy(update={"factors": {"compaction": t.factors["compaction"]}}) for t in _trials()
    ]
    assert level_bar_figure(trials, "op_rate", []) is None
