"""A finished (or interrupted) run as pandas frames, for notebooks.

import casslab.results
run = casslab.results.load("results/quick-compaction/20261122T170549Z")
run.trials      # one row per trial: trial_id, cell_id, iteration, factor columns, KPIs
run.intervals   # one row per measured engine interval
run.metrics     # long format: trial_id, time, node, metric, value
run.manifest    # versions, host, the resolved experiment
run.plan        # cells, factors, baseline and trial order (None for runs before plan.json)

The run's files come from :mod:`casslab.store`, the KPIs from :mod:`casslab.analysis`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from casslab.analysis.run_frames import intervals_frame, trials_frame
from casslab.store.plan_file import PlanOutline
from casslab.store.run_data import LegacyPlan, read_run
from casslab.store.run_records import RunManifest

__all__ = ["Results", "load"]

METRIC_COLUMNS = ["trial_id", "time", "node", "metric", "value"]


@dataclass(frozen=True)
class Results:
    manifest: RunManifest
    plan: PlanOutline | None
    trials: pd.DataFrame
    intervals: pd.DataFrame
    metrics: pd.DataFrame


def load(path: Path | str, *, legacy_plan: LegacyPlan | None = None) -> Results:
    """The frames of the run directory ``path``.

    Raises :class:`~casslab.errors.StoreError` when it is not one, and
    :class:`~casslab.errors.NewerSchemaError` when a newer casslab wrote it.
    """
    run = read_run(path, legacy_plan=legacy_plan)
    frames = [
        trial.metrics.assign(trial_id=trial.result.trial_id)
        for trial in run.trials
        if trial.metrics is not None and len(trial.metrics)
    ]
    metrics = (
        pd.concat(frames, ignore_index=True)[METRIC_COLUMNS]
        if frames
        else pd.DataFrame(columns=METRIC_COLUMNS)
    )
    return Results(
        manifest=run.manifest,
        plan=run.plan,
        trials=trials_frame(run),
        intervals=intervals_frame(run),
        metrics=metrics,
    )
