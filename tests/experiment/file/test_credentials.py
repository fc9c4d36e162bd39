"""Passwords in experiment files: never in the manifest's experiment, a cell id or a
problem message; a run directory is its owner's only."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from casslab.errors import ExperimentValidationError
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.file import experiment_loader
from casslab.experiment.file.experiment_model import Experiment
from casslab.load.credentials import MASK
from casslab.store.runs import new_run

SECRET = "S3cretPa55-casslab"
FILE = f"""
name: secret-demo
cluster: {{nodes: 1, heap: 512M}}
factors:
  workload:
    - "write -mode native cql3 user=alice password={SECRET}"
    - "ycsb run -P workloada -p cassandra.username=alice -p cassandra.password={SECRET}"
    - "write -mode user=a password={SECRET}"
preload: "write n=100 -mode user=alice password={SECRET}"
measure: {{stress: "duration=5s -rate threads=4", ycsb: "-p operationcount=100 -threads 4"}}
iterations: 1
"""


def test_the_manifest_copy_of_an_experiment_has_no_password() -> None:
    experiment = experiment_loader.parse(FILE)
    stored = experiment.to_file_dict()
    text = json.dumps(stored)
    assert SECRET not in text
    assert MASK in text
    # the report expands the stored copy: the same cells, trial ids and digest
    again = Experiment.model_validate(stored)
    assert [c.id for c in expand(again).cells] == [c.id for c in expand(experiment).cells]
    assert expand(again).digest == expand(experiment).digest


def test_cell_ids_and_trial_ids_hold_no_password() -> None:
    plan = expand(experiment_loader.parse(FILE))
    ids = plan.model_dump_json(include={"cells": {"__all__": {"id", "labels"}}})
    assert SECRET[:6] not in ids  # a cell id is cut at 40 characters: any part is a leak
    assert "password-suppressed" in ids
    assert all(SECRET[:6] not in trial.trial_id for trial in plan.trials)
    # the measured commands keep the password: the runner needs it in memory
    assert all(SECRET in trial.workload.text for trial in plan.trials)


def test_problems_quote_commands_masked() -> None:
    bad = FILE.replace("write -mode native cql3", "write -rate bogus=1 -mode native cql3")
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(bad, "bad.yaml")
    assert "measured command" in str(caught.value)
    assert SECRET not in str(caught.value)


def test_an_unset_password_env_is_a_problem_before_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CASSLAB_TEST_PW_UNSET", raising=False)
    text = FILE.replace(f"password={SECRET}", "password-env=CASSLAB_TEST_PW_UNSET", 1)
    with pytest.raises(ExperimentValidationError, match="CASSLAB_TEST_PW_UNSET is not set"):
        experiment_loader.parse(text, "env.yaml")
    monkeypatch.setenv("CASSLAB_TEST_PW_UNSET", SECRET)
    assert experiment_loader.parse(text, "env.yaml").name == "secret-demo"


def test_a_new_run_directory_is_private(tmp_path: Path) -> None:
    layout = new_run(tmp_path / "results", experiment_loader.parse(FILE).name)
    assert stat.S_IMODE(layout.root.stat().st_mode) == 0o700
