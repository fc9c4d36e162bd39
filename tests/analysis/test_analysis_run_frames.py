"""Cells, KPIs and frames of a run, from literal RunData."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.analysis.run_frames import (
    TrialSteadiness,
    cell_layout,
    intervals_frame,
    trial_steadiness,
    trials_frame,
)
from casslab.engine_contract.engine_records import IntervalRecord, LatencyStats, OpStats
from casslab.store.plan_file import PlanOutline
from casslab.store.run_data import RunData, TrialData
from casslab.store.run_records import TrialResult
from run_literals import PLAN, manifest, trial

OUTLINE = PlanOutline.model_validate(PLAN)
BIG, SMALL = "size=big", "size=small"


def _run(results: list[TrialResult], plan: PlanOutline | None = OUTLINE, note: str = "") -> RunData:
    return RunData(
        root=Path("run"),
        manifest=manifest(),
        trials=tuple(TrialData(result=r) for r in results),
        plan=plan,
        plan_note=note,
    )


BOTH = [trial(BIG), trial(SMALL, 1, 1)]


@pytest.mark.parametrize(
    ("results", "plan", "cells", "baseline", "note"),
    [
        # the plan's design order and baseline
        (BOTH, OUTLINE, [BIG, SMALL], SMALL, ""),
        # a cell found only in the trials goes last
        ([*BOTH, trial("size=odd", 1, 2)], OUTLINE, [BIG, SMALL, "size=odd"], SMALL, ""),
        # one cell: nothing to compare against
        ([trial(SMALL)], OUTLINE, [BIG, SMALL], None, ""),
        # the baseline never finished: no comparisons, and a note saying so
        (
            [trial(BIG), trial("size=odd", 1, 1)],
            OUTLINE,
            [BIG, SMALL, "size=odd"],
            None,
            "the baseline cell 'size=small' has no finished trial",
        ),
        # no plan: sorted, the first is the baseline, and the note says why
        (BOTH, None, [BIG, SMALL], BIG, "no plan.json; cells are in sorted order"),
    ],
)
def test_cell_layout(
    results: list[TrialResult],
    plan: PlanOutline | None,
    cells: list[str],
    baseline: str | None,
    note: str,
) -> None:
    layout = cell_layout(_run(results, plan, "no plan.json" if plan is None else ""))
    assert layout.cells == cells
    assert layout.baseline_cell == baseline
    assert layout.factors == ["config.size"]
    assert note in layout.note
    assert bool(note) == bool(layout.note)


def test_a_legacy_plan_keeps_its_note() -> None:
    layout = cell_layout(_run(BOTH, OUTLINE, "plan.json is missing; expanded"))
    assert layout.baseline_cell == SMALL
    assert layout.note == "plan.json is missing; expanded"


def test_trials_frame_one_row_per_trial_failed_ones_too() -> None:
    frame = trials_frame(_run([trial(BIG), trial(SMALL, 1, 1, ok=False)]))

    assert list(frame.trial_id) == [f"{BIG}/1", f"{SMALL}/1"]
    assert list(frame.status) == ["ok", "failed"]
    assert list(frame["config.size"]) == ["big", "small"]
    assert frame.op_rate.iloc[0] == 1000.0
    assert frame.error.iloc[1] == "it broke"


def test_intervals_frame_of_trials_without_intervals_is_empty() -> None:
    frame = intervals_frame(_run(BOTH))
    assert frame.empty
    assert list(frame.columns[:4]) == ["trial_id", "cell_id", "iteration", "t_s"]


def test_trials_frame_has_the_steady_state_columns() -> None:
    frame = trials_frame(
        _run(
            [
                trial(BIG, steady_start_s=12.0, steady=True),
                trial(SMALL, 1, 1, steady_start_s=0.0, steady=False, steady_reason="trends"),
                trial(SMALL, 2, 2),  # recorded by an older casslab: not judged
                trial(BIG, 2, 3, ok=False),
            ]
        )
    )

    assert list(frame.columns[6:10]) == ["started_at", "ended_at", "steady_start_s", "steady"]
    assert frame["steady_start_s"].dtype == "float64"
    assert str(frame["steady"].dtype) == "boolean"
    assert frame["steady_start_s"].tolist()[:2] == [12.0, 0.0]
    assert frame["steady"].tolist()[:2] == [True, False]
    assert frame["steady"].isna().tolist()[2:] == [True, True]
    assert frame["steady_start_s"].isna().tolist()[2:] == [True, True]


def _interval(second: int, rate: float) -> IntervalRecord:
    latency = LatencyStats(
        count=int(rate), mean_ms=1.0, p50_ms=1.0, p95_ms=2.0, p99_ms=3.0, p999_ms=4.0, max_ms=5.0
    )
    stats = OpStats(count=int(rate), errors=0, op_rate=rate, response=latency, service=latency)
    return IntervalRecord(
        t_start_s=float(second), t_end_s=second + 1.0, threads=4, total=stats, ops={}
    )


@pytest.mark.parametrize(
    ("result", "intervals", "expected"),
    [
        # recorded: as recorded
        (
            trial(BIG, steady_start_s=12.0, steady=True),
            (),
            TrialSteadiness(steady=True, start_s=12.0),
        ),
        # KPIs recorded without a steady state (an older casslab): not judged
        (trial(BIG), tuple(_interval(s, 1000.0) for s in range(60)), None),
        # KPIs not recorded, so computed now: the steady state is computed with them
        (
            trial(BIG, kpis={}),
            tuple(_interval(s, 200.0 if s < 10 else 1000.0) for s in range(60)),
            TrialSteadiness(steady=True, start_s=10.0),
        ),
        # a failed trial is not judged
        (trial(BIG, ok=False), tuple(_interval(s, 1000.0) for s in range(60)), None),
    ],
)
def test_trial_steadiness(
    result: TrialResult, intervals: tuple[IntervalRecord, ...], expected: TrialSteadiness | None
) -> None:
    assert trial_steadiness(TrialData(result=result, intervals=intervals)) == expected
