"""casslab.results.load: a run directory as pandas frames (for notebooks)."""

from __future__ import annotations

from pathlib import Path

import pytest

import casslab.results
from casslab.errors import StoreError


def test_frames_of_a_run(run_dir: Path) -> None:
    results = casslab.results.load(run_dir)
    trials = results.trials
    assert {"trial_id", "cell_id", "iteration", "op_rate"} <= set(trials.columns)
    assert results.manifest.run_id == run_dir.name
    measured = set(results.metrics.trial_id)
    assert measured
    assert measured <= set(trials.trial_id)
    assert list(results.metrics.columns) == ["trial_id", "time", "node", "metric", "value"]
    assert len(results.intervals) > 0


def test_not_a_run_directory(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"manifest\.json not found"):
        casslab.results.load(tmp_path)
