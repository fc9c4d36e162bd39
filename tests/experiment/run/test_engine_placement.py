"""``casslab run --engine-cpus``: every engine run of a trial (preload, JVM warm-up
rehearsal, measure) runs pinned in the run's engine cgroup, gone when the run ends; the
manifest records the CPUs, a resume must keep them, and the resume hint repeats them."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from casslab.errors import ExperimentError
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions, resume_command
from casslab.host.cgroups import read_hierarchy
from casslab.host.engine_cgroup import host_cpus
from casslab.load.session import LoadSession
from casslab.store.layout import RunLayout
from casslab.store.run_records import read_manifest
from fakes import Calls, engine_runs, fake_factory, install_fake_engine

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="cgroups need root")


def _experiment(**fields: Any) -> Experiment:
    base: dict[str, Any] = {
        "name": "pinned",
        "workload": "write",
        "measure": "duration=2s -rate threads=4",
        "preload": "write n=100",
        "iterations": 2,
        "order": "sequential",
        "reset": "recreate",
    }
    return Experiment.model_validate({**base, **fields})


def _runner(tmp_path: Path, engine_cpus: str | None, *, jvm_warmup_s: float = 0) -> Runner:
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir(exist_ok=True)
    options = RunnerOptions(
        results_root=tmp_path,
        jvm_warmup_s=jvm_warmup_s,
        write_report=False,
        cluster_root=tmp_path / "c",
        engine_cpus=engine_cpus,
    )
    return Runner(
        _experiment(),
        layout,
        options,
        create_cluster=fake_factory(Calls()),
        metrics_sources=lambda _cluster, _pid: [],
    )


@root_only
def test_every_engine_run_of_every_trial_runs_pinned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install_fake_engine(tmp_path, monkeypatch)
    cpu = str(max(host_cpus()))
    _runner(tmp_path, cpu, jvm_warmup_s=5).run()
    runs = engine_runs(log)
    # the warm-up's preload (seed 0) and rehearsal (seed 1), then trials 1 and 2
    assert [r["seed"] for r in runs] == [0, 1, 1, 2]
    assert {r["cpus"] for r in runs} == {cpu}
    [cgroup] = {r["cpuset"] for r in runs}  # one cgroup for the whole run
    assert re.fullmatch(rf"/casslab/engine-{os.getpid()}-\d+", cgroup)
    assert not any(d.exists() for d in read_hierarchy().directories(cgroup.lstrip("/")))
    assert read_manifest(RunLayout(root=tmp_path / "run").manifest).engine_cpus == cpu


def test_without_the_option_no_engine_is_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install_fake_engine(tmp_path, monkeypatch)
    _runner(tmp_path, None).run()
    assert not any(r["cpuset"].startswith("/casslab/") for r in engine_runs(log))
    assert read_manifest(RunLayout(root=tmp_path / "run").manifest).engine_cpus is None
    assert LoadSession().place() is None


def test_a_resume_must_place_the_engine_as_the_run_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install_fake_engine(tmp_path, monkeypatch)
    runner = _runner(tmp_path, None)
    runner.run()
    runs = len(engine_runs(log))
    resumed = _runner(tmp_path, "0")
    with pytest.raises(ExperimentError) as error:
        resumed.run()
    assert (
        f"cannot resume {tmp_path / 'run'}: its trials ran with the load engine unpinned and "
        "this command asks for --engine-cpus 0; resume with no --engine-cpus, or run without "
        "--resume to start a new run"
    ) == str(error.value)
    assert len(engine_runs(log)) == runs


def test_the_resume_hint_repeats_the_engine_cpus() -> None:
    options = RunnerOptions(experiment_file=Path("e.yaml"), engine_cpus="1")
    assert resume_command(options, Path("r/1")) == (
        "casslab run e.yaml --resume-dir r/1 --engine-cpus 1"
    )
