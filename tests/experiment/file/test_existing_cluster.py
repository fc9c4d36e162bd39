"""Experiments on an existing cluster (``cluster: {use: NAME}``): what the file may ask is
checked before anything starts, and the runner only uses the cluster: attached once, never
created, restarted, wiped or destroyed, every trial preloaded (no captures), and emptied
only when the file says ``reset: truncate``, then of the trial's keyspace only."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from casslab.cluster import ClusterSpec, ResetMode, cluster_spec
from casslab.errors import ExperimentValidationError
from casslab.experiment.file import experiment_loader
from casslab.experiment.file.experiment_model import Experiment, ResetPolicy
from casslab.experiment.run import trial_cluster
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialStatus
from cli_entry import NEEDS_ENGINE, casslab
from fakes import Calls, FakeCluster, install_fake_engine

FILE = """
name: on-lab
cluster: {use: lab}
schema: {keyspace: ks_lab}
factors: {threads: [2, 4]}
preload: "write n=100 -schema keyspace=ks_lab"
workload: "write -schema keyspace=ks_lab"
measure: "duration=2s"
iterations: 1
order: sequential
"""


def problems_of(text: str) -> list[str]:
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(textwrap.dedent(text), "bad.yaml")
    return caught.value.problems


def test_a_file_on_an_existing_cluster_keeps_its_data_unless_it_says_truncate() -> None:
    assert experiment_loader.parse(FILE).reset is ResetPolicy.NONE
    assert experiment_loader.parse(FILE + "reset: truncate\n").reset is ResetPolicy.TRUNCATE
    assert (
        experiment_loader.parse(FILE.replace("{use: lab}", "{nodes: 1}")).reset
        is ResetPolicy.TRUNCATE
    )


def test_what_an_existing_cluster_already_has_is_refused_by_name() -> None:
    text = FILE.replace(
        "{use: lab}",
        "{use: lab, nodes: 3, config: {concurrent_writes: 64}, jvm_options: [-XX:+AlwaysPreTouch]}",
    )
    text = text.replace("{threads: [2, 4]}", "{threads: [2, 4], config.concurrent_reads: [32, 64]}")
    problems = problems_of(text + "reset: recreate\n")
    assert (
        "cluster.nodes: cluster 'lab' is used as it is; casslab does not set its nodes "
        "(remove it, or run on a cluster of casslab's own without cluster.use)"
    ) in problems
    assert any(p.startswith("cluster.config: cluster 'lab' is used as it is") for p in problems)
    assert (
        "cluster.jvm_options: cluster 'lab' is used as it is; casslab does not set its "
        "jvm_options (remove it, or run on a cluster of casslab's own without cluster.use)"
    ) in problems
    assert (
        "factors.config.concurrent_reads: cluster 'lab' is used as it is; casslab does not "
        "change its cassandra.yaml (vary the workload, threads, rate or table options instead)"
    ) in problems
    refused = "reset: 'recreate' on cluster 'lab', which casslab did not start"
    assert any(p.startswith(refused) for p in problems)


def _runner(tmp_path: Path, experiment: Experiment, calls: Calls, monkeypatch: Any) -> Runner:
    lab = FakeCluster(cluster_spec(name="lab"), tmp_path / "clusters", calls)

    def attach(name: str, root: Path | None = None) -> FakeCluster:
        calls.log.append(("attach", name))
        return lab

    def create(spec: ClusterSpec, root: Path | None, *, fresh: bool) -> FakeCluster:
        raise AssertionError(f"the runner created cluster {spec.name} on an existing one")

    monkeypatch.setattr(trial_cluster, "attach", attach)
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir()
    options = RunnerOptions(results_root=tmp_path, jvm_warmup_s=30, write_report=False)
    return Runner(
        experiment, layout, options, create_cluster=create, metrics_sources=lambda _c, _p: []
    )


@pytest.mark.parametrize(
    ("extra", "resets"),
    [("", []), ("reset: truncate\n", [("reset", (ResetMode.TRUNCATE, ["ks_lab"]))] * 2)],
)
def test_the_runner_only_uses_an_existing_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str, resets: list[Any]
) -> None:
    install_fake_engine(tmp_path, monkeypatch)
    calls = Calls()
    runner = _runner(tmp_path, experiment_loader.parse(FILE + extra), calls, monkeypatch)
    runner.run()
    statuses = [r.status for r in runner._finished_results()]
    assert statuses == [TrialStatus.OK, TrialStatus.OK]
    asked = [(name, value) for name, value in calls.log if name != "attach"]
    assert [name for name, _ in calls.log].count("attach") == 1
    assert [c for c in asked if c[0] in {"reset", "wipe", "restart", "start", "stop"}] == resets
    assert not [c for c in asked if c[0] in {"destroy", "capture", "restore"}]
    preloads = sorted((tmp_path / "run" / "trials").glob("*/*/preload"))
    assert len(preloads) == 2  # every trial preloads: nothing is captured on the cluster


@NEEDS_ENGINE[0]
@NEEDS_ENGINE[1]
def test_plan_says_the_cluster_is_used_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "on-lab.yaml"
    path.write_text(FILE)
    done = casslab(tmp_path, "plan", str(path), columns=300)
    assert done.returncode == 0, done.stderr
    assert "on cluster 'lab' as it is (none created or restarted, reset none)" in done.stdout
    assert "cluster(s) created" not in done.stdout


def test_a_partition_on_a_cluster_in_use_is_left_to_the_run_to_check() -> None:
    """The file cannot show a running cluster's datacenters: the fault check lets it pass
    (the run refuses a cluster without links when it meets it); a cluster of casslab's own
    without a topology is refused in the file."""
    fault = "faults: [{at: 1s, kind: partition, target: dc2, for: 1s}]\n"
    assert len(experiment_loader.parse(FILE + fault).faults) == 1
    own = FILE.replace("{use: lab}", "{nodes: 1}") + fault
    assert any("has no topology" in p for p in problems_of(own))
