"""Load as a share of capacity: rate shares and threads: best resolve into each trial's
discover need (one group per set of cells that differ only in load), the runner's command
for a trial follows from what its group found, and every mistake is a problem before
anything starts."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from casslab.errors import ExperimentError, ExperimentValidationError
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.file import experiment_loader
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.steps.discover.discover_phase import measured_command
from casslab.experiment.steps.discover.discover_section import DiscoverSection, need_for, rate_share
from casslab.store.run_records import Discovered


def _data(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "shares",
        "cluster": {"nodes": 1, "heap": "512M"},
        "factors": {
            "workload": ["write -pop dist=UNIFORM(1..1000)", "read -pop dist=UNIFORM(1..1000)"],
            "rate": ["100%", "66%"],
        },
        "discover": {"p99": "20ms"},
        "measure": "duration=10s -rate threads=32",
        "iterations": 2,
        "order": "sequential",
    }
    data.update(fields)
    return data


def _load(data: dict[str, Any]) -> Experiment:
    return experiment_loader.parse(yaml.safe_dump(data, sort_keys=False), "shares.yaml")


def _problems(data: dict[str, Any]) -> str:
    with pytest.raises(ExperimentValidationError) as raised:
        _load(data)
    return " | ".join(raised.value.problems)


def test_rate_shares_make_one_group_per_workload_and_leave_the_rate_to_the_runner() -> None:
    plan = expand(_load(_data()))
    assert len(plan.trials) == 8
    groups = {t.cell_id: t.discover.group for t in plan.trials if t.discover}
    write, read = "workload=write-pop-dist-1..1000", "workload=read-pop-dist-1..1000"
    assert groups == {
        f"{write},rate=100pct": write,
        f"{write},rate=66pct": write,
        f"{read},rate=100pct": read,
        f"{read},rate=66pct": read,
    }
    trial = next(t for t in plan.trials if t.cell_id.endswith("66pct"))
    assert trial.discover is not None
    assert trial.discover.rate_share == pytest.approx(0.66)
    assert trial.discover.open_loop
    assert not trial.discover.ramp
    assert "fixed=" not in trial.workload.text  # composed by the runner, after discovery
    assert "threads=32" in trial.workload.text


def test_the_runner_composes_the_share_of_what_its_group_found() -> None:
    plan = expand(_load(_data()))
    trial = next(t for t in plan.trials if t.cell_id.endswith("66pct"))
    assert trial.discover is not None
    found = Discovered(
        group=trial.discover.group, trial_id=trial.trial_id, capacity_per_s=3000.0, elapsed_s=1
    )
    command = measured_command(trial, found)
    assert "-rate threads=32 fixed=1980/s" in command.text  # 66% of 3000, threads kept
    failed = found.model_copy(update={"error": "the discover search ended none_meets"})
    with pytest.raises(ExperimentError, match="none_meets"):
        measured_command(trial, failed)


def test_best_threads_takes_the_ramp_and_an_absolute_rate_stays() -> None:
    data = _data(factors={"threads": ["best", 8], "rate": [500]}, discover={})
    data["workload"] = "write -pop dist=UNIFORM(1..1000)"
    plan = expand(_load(data))
    best = next(t for t in plan.trials if "threads=best" in t.cell_id)
    assert best.discover is not None
    assert best.discover.ramp
    assert not best.discover.open_loop
    assert best.discover.rate == 500.0
    assert best.discover.group == "all"
    eight = next(t for t in plan.trials if "threads=8" in t.cell_id)
    assert eight.discover is None  # absolute levels only: no discovery
    assert "-rate threads=8 fixed=500/s" in eight.workload.text
    found = Discovered(group="all", trial_id=best.trial_id, best_threads=609, elapsed_s=1)
    assert "-rate threads=609 fixed=500/s" in measured_command(best, found).text


def test_a_share_without_p99_is_of_the_ramps_best_rate() -> None:
    need = need_for(DiscoverSection(), "all", None, "50%")
    assert need is not None
    assert need.ramp
    assert not need.open_loop
    assert need.describe() == "rate 50% of the thread ramp's best rate"
    assert need_for(None, "all", 16, 2000) is None
    assert rate_share("66.5%") == pytest.approx(0.665)
    assert rate_share(2000) is None


def test_relative_levels_need_the_step_and_the_step_needs_them() -> None:
    data = _data()
    del data["discover"]
    assert "factors.rate[0] (100%): a share of capacity or best threads needs a discover:" in (
        _problems(data)
    )
    assert "discover: no level uses it" in _problems(_data(factors={"rate": [1000]}))


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"factors": {"rate": ["fast"]}}, "factors.rate[0]: expected ops/s (2000) or a share"),
        ({"factors": {"rate": ["0%"]}}, "a share of capacity is above 0% and at most 200%"),
        ({"factors": {"threads": ["most"]}}, "expected an integer >= 1 or best"),
        ({"discover": {"p99": "20"}}, "discover.p99 20: give the unit"),
        ({"discover": {"p99": "20ms", "step_duration": "long"}}, "discover.step_duration"),
        ({"discover": {"p99": "20ms", "repeats": 0}}, "discover.repeats"),
        ({"discover": {"p99": "20ms", "bogus": 1}}, "discover.bogus"),
        ({"discover": {"p99": "20ms", "max_rate": 5}}, "start_rate 1000 is above max_rate 5"),
    ],
)
def test_bad_discover_input_is_named(fields: dict[str, Any], expected: str) -> None:
    assert expected in _problems(_data(**fields))
