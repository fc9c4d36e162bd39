"""Read a finished (or interrupted) run into pandas frames, for notebooks.

import casslab.results
run = casslab.results.load("results/quick-compaction/20261122T170549Z")
run.trials      # one row per trial: trial_id, cell_id, iteration, factor columns, KPIs
run.intervals   # one row per measured engine interval
run.metrics     # long format: trial_id, time, node, metric, value
run.manifest    # versions, host, the resolved experiment
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from casslab.experiment.records import RunManifest
from casslab.report.frames import intervals_frame, trials_frame
from casslab.report.load import load_run


@dataclass(frozen=True)
class Results:
    manifest: RunManifest
    trials: pd.DataFrame
    intervals: pd.DataFrame
    metrics: pd.DataFrame


def load(path: Path | str) -> Results:
    """The frames of the run directory ``path`` (raises ReportError if it is not one)."""
    run = load_run(path)
    frames = [
        trial.metrics.assign(trial_id=trial.result.trial_id)
        for trial in run.trials
        if trial.metrics is not None and len(trial.metrics)
    ]
    metrics = (
        pd.concat(frames, ignore_index=True)[["trial_id", "time", "node", "metric", "value"]]
        if frames
        else pd.DataFrame(columns=["trial_id", "time", "node", "metric", "value"])
    )
    return Results(
        manifest=run.manifest,
        trials=trials_frame(run),
        intervals=intervals_frame(run),
        metrics=metrics,
    )
