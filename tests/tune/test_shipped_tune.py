"""Every tuning study shipped in experiments/tune/ loads, states its run time, starts from
the default configuration its file sets, and turns a sampled candidate into a trial."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest

from casslab.tune.loader import load
from casslab.tune.runner_evaluator import candidate_trial
from casslab.tune.space import default_params, suggest

STUDIES = sorted((Path(__file__).resolve().parents[2] / "experiments" / "tune").glob("*.yaml"))


def test_the_studies_are_there() -> None:
    assert [p.name for p in STUDIES] == [
        "tune-quick.yaml",
        "tune-seed000-scaled.yaml",
        "tune-seed000.yaml",
    ]


@pytest.mark.parametrize("path", STUDIES, ids=lambda p: p.stem)
def test_a_shipped_study_loads_and_its_candidates_are_trials(path: Path) -> None:
    tune_file = load(path)
    header = path.read_text().split("schema_version")[0]
    assert "minutes" in header or " h" in header  # each states how long it runs
    default = default_params(tune_file.tune.space)
    assert default  # the default configuration is the file's own settings
    _cell, trial = candidate_trial(tune_file, default, "s000")
    for key, value in tune_file.experiment.cluster.config.items():
        assert trial.settings[key] == value
    sampled = suggest(optuna.create_study().ask(), tune_file.tune.space)
    _cell, trial = candidate_trial(tune_file, sampled, "s001")
    assert trial.trial_id == "s001/1"
    assert trial.table.compaction is not None


def test_the_seed000_studies_search_the_studys_knobs_and_the_strategy() -> None:
    for path in STUDIES[1:]:
        names = load(path).tune.space.names()
        for knob in (
            "config.memtable_heap_space",
            "config.memtable_flush_writers+memtable_cleanup_threshold",
            "config.concurrent_compactors",
            "config.compaction_throughput",
            "table.compaction",
        ):
            assert knob in names, (path.name, knob)
