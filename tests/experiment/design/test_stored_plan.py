"""plan.json from the experiment's side: what a run keeps, what a resume runs, and the
outline the report reads of every plan."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from casslab.cluster import Isolation, NodeIsolation
from casslab.errors import ClusterError, ExperimentError, NewerSchemaError
from casslab.experiment.design.plan_expansion import expand, experiment_digest
from casslab.experiment.design.plan_records import PLAN_SCHEMA_VERSION, Plan, Trial
from casslab.experiment.design.stored_plan import (
    outline_of_manifest,
    plan_for_run,
    plan_json,
    save_plan,
    stored_plan,
)
from casslab.experiment.design.trial_order import with_restarts
from casslab.experiment.file import experiment_loader
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions
from casslab.store.layout import RunLayout
from casslab.store.plan_file import PlanOutline, read_plan_file, write_plan_file
from casslab.store.run_records import read_manifest
from run_literals import manifest

DATA = Path(__file__).parents[1] / "data"
EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"
FILES = [DATA / "two-cells.yaml", *sorted(EXPERIMENTS.glob("*.yaml"))]
# cluster fields the file dicts of an earlier casslab did not have (besides the nodes'
# isolation fields): left out at their defaults, the digest of those files is unchanged
LATER_CLUSTER_FIELDS = (
    "topology",
    "clock",
    "gc",
    "preset",
    "node_versions",
    "java_home",
    "jvm_options",
)


def _experiment(**update: Any) -> Experiment:
    return Experiment.model_validate(
        {
            "name": "stored",
            "workload": "mixed ratio(write=9,read=1)",
            "factors": {"nodes": [1, 3]},
            "iterations": 2,
            "order": "sequential",
            **update,
        }
    )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_plan_reads_as_the_outline_the_report_needs(path: Path) -> None:
    plan = expand(experiment_loader.load(path))

    outline = PlanOutline.model_validate(plan_json(plan))

    assert outline.experiment == plan.experiment
    assert outline.digest == plan.digest
    assert outline.factors == plan.factors
    assert outline.baseline_cell_id == plan.baseline_cell_id
    assert [(c.id, c.labels, c.baseline) for c in outline.cells] == [
        (c.id, c.labels, c.baseline) for c in plan.cells
    ]
    assert [(t.trial_id, t.position) for t in outline.trials] == [
        (t.trial_id, t.position) for t in plan.trials
    ]


def test_a_saved_plan_reads_back_equal_and_is_kept(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    plan = expand(_experiment())

    save_plan(layout, plan)
    first = layout.plan.read_text()
    save_plan(layout, expand(_experiment(iterations=5)))  # a resumed run keeps its plan

    assert layout.plan.read_text() == first
    assert stored_plan(layout) == plan


def test_without_plan_json_the_experiment_is_expanded(tmp_path: Path) -> None:
    assert plan_for_run(_experiment(), RunLayout(root=tmp_path)) == expand(_experiment())


def _reordered(plan: Plan) -> Plan:
    """The plan as another casslab version might have expanded it: same file, other order."""
    trials: list[Trial] = list(reversed(plan.trials))
    return plan.model_copy(update={"trials": with_restarts(trials)})


def test_plan_json_is_what_a_resumed_run_runs(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    older = _reordered(expand(_experiment()))
    write_plan_file(layout, plan_json(older))

    plan = plan_for_run(_experiment(), layout)

    assert plan == older
    assert plan != expand(_experiment())


def test_an_edited_experiment_file_cannot_resume(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    save_plan(layout, expand(_experiment()))

    with pytest.raises(ExperimentError, match="the experiment file changed since that run"):
        plan_for_run(_experiment(iterations=3), layout)


def test_a_plan_of_a_newer_casslab_is_refused(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    data = plan_json(expand(_experiment()))
    data["schema_version"] = PLAN_SCHEMA_VERSION + 1
    write_plan_file(layout, data)

    newer = rf"plan\.json: it has schema_version {PLAN_SCHEMA_VERSION + 1}"
    with pytest.raises(NewerSchemaError, match=newer):
        stored_plan(layout)


def _isolated_experiment() -> Experiment:
    return _experiment(
        cluster={"nodes": 2, "heap": "512M", "node_size": "t2.small", "cpu_scale": 0.5},
        factors={"cluster.isolation": ["process", "netns"], "cluster.memory": ["1GiB", "2GiB"]},
    )


def test_a_plan_with_isolated_nodes_reads_back_equal(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    plan = expand(_isolated_experiment())

    save_plan(layout, plan)
    read = stored_plan(layout)

    assert read == plan
    assert read is not None
    assert read.schema_version == PLAN_SCHEMA_VERSION == 3
    netns = [t for t in read.trials if t.node_isolation.isolation is Isolation.NETNS]
    assert len(netns) == 4
    assert {t.node_isolation.memory for t in netns} == {"1GiB", "2GiB"}
    assert all(t.node_isolation.node_size == "t2.small" for t in read.trials)
    assert all(t.node_isolation.cpu_scale == 0.5 for t in read.trials)
    reasons = [t.restart_reason.value if t.restart_reason else None for t in read.trials]
    # sequential: each cell's two iterations in a row; isolation, then memory, varies
    assert reasons == ["first", None, "memory", None, "isolation", None, "memory", None]


def _schema_1(data: dict[str, Any]) -> dict[str, Any]:
    """A plan as casslab wrote it before trials carried their nodes' isolation."""
    old = {**data, "schema_version": 1}
    old["trials"] = [
        {k: v for k, v in trial.items() if k != "node_isolation"} for trial in data["trials"]
    ]
    return old


def test_a_plan_of_schema_1_reads_as_plain_processes_and_resumes(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    plan = expand(_experiment())
    write_plan_file(layout, _schema_1(plan_json(plan)))

    read = stored_plan(layout)

    assert read == plan  # schema 2 now, every node a plain process, as it ran
    assert read is not None
    assert all(t.node_isolation == NodeIsolation() for t in read.trials)
    assert plan_for_run(_experiment(), layout) == plan  # same digest: the run resumes


def test_the_digest_of_a_file_without_isolation_is_what_it_was_before(tmp_path: Path) -> None:
    """Runs an earlier casslab started resume: the isolation fields at their defaults are
    no part of the digest (SHA-256 over the file dict without them, as it was then)."""
    experiment = _experiment()
    data = experiment.to_file_dict()
    for name in [*NodeIsolation.model_fields, *LATER_CLUSTER_FIELDS]:
        del data["cluster"][name]
    del data["client_dc"], data["lww"], data["discover"], data["clients"], data["faults"]
    del data["profile"], data["after_operations"]
    del data["claims"]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))

    assert experiment_digest(experiment) == hashlib.sha256(text.encode()).hexdigest()
    assert experiment_digest(_isolated_experiment()) != experiment_digest(experiment)
    netns = _experiment(cluster={"isolation": "netns"})
    assert experiment_digest(netns) != experiment_digest(experiment)


def _schema_2(data: dict[str, Any]) -> dict[str, Any]:
    """A plan as casslab wrote it before trials carried a topology and client_dc."""
    old = {**data, "schema_version": 2}
    old["trials"] = [
        {k: v for k, v in trial.items() if k not in ("topology", "client_dc")}
        for trial in data["trials"]
    ]
    return old


def test_a_plan_of_schema_2_reads_as_one_datacenter_and_resumes(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    plan = expand(_isolated_experiment())
    write_plan_file(layout, _schema_2(plan_json(plan)))

    read = stored_plan(layout)

    assert read == plan  # schema 3 now, without topologies, as it ran
    assert read is not None
    assert all(t.topology is None and t.local_dc is None for t in read.trials)
    assert plan_for_run(_isolated_experiment(), layout) == plan


def test_the_digest_of_a_file_without_topology_is_what_it_was_before() -> None:
    """Adding the topology fields left the digest of every earlier file as it was."""
    experiment = _experiment(cluster={"nodes": 2, "isolation": "netns"})
    data = experiment.to_file_dict()
    for name in LATER_CLUSTER_FIELDS:
        del data["cluster"][name]
    del data["client_dc"], data["lww"]
    del data["discover"], data["clients"], data["faults"], data["claims"], data["profile"]
    del data["after_operations"]
    for name, value in NodeIsolation().model_dump(mode="json").items():
        if data["cluster"][name] == value:  # left out at its default, as before
            del data["cluster"][name]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))

    assert experiment_digest(experiment) == hashlib.sha256(text.encode()).hexdigest()
    far = _experiment(cluster={"topology": "far-apart"}, factors={}, client_dc="utah")
    assert experiment_digest(far) != experiment_digest(_experiment(factors={}))
    skewed = _experiment(cluster={"nodes": 2, "clock": {2: "-500ms"}}, factors={})
    assert experiment_digest(skewed) != experiment_digest(_experiment(factors={}))


def test_a_plan_with_topologies_reads_back_equal(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    plan = expand(
        _experiment(
            factors={"cluster.topology": ["one-site", "far-apart"]},
            schema={
                "replication": {
                    "one-site": {"class": "NetworkTopologyStrategy", "utah": 3},
                    "far-apart": {"class": "NetworkTopologyStrategy", "utah": 1, "clemson": 1},
                }
            },
            client_dc="utah",
        )
    )

    save_plan(layout, plan)
    read = stored_plan(layout)

    assert read == plan
    assert read is not None
    assert [t.topology.name if t.topology else None for t in read.trials] == [
        "one-site",
        "one-site",
        "far-apart",
        "far-apart",
    ]
    assert read.trials[2].topology is not None
    assert len(read.trials[2].topology.links) == 3
    assert [t.restart_reason.value if t.restart_reason else None for t in read.trials] == [
        "first",
        None,
        "topology",
        None,
    ]


def test_a_plan_this_casslab_cannot_read_says_which_casslab_can(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    data = plan_json(expand(_experiment()))
    del data["cells"]
    write_plan_file(layout, data)
    raw = json.loads(layout.plan.read_text())
    raw["casslab_version"] = "0.0.9"
    layout.plan.write_text(json.dumps(raw))

    with pytest.raises(ExperimentError) as caught:
        stored_plan(layout)
    message = str(caught.value)
    assert "cells: required, but missing" in message
    assert "finish the run with casslab 0.0.9, or start a new run" in message


def test_the_runner_writes_plan_json_first_and_keeps_it_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cannot_start(self: Runner, trial: Trial) -> Any:
        raise ClusterError("no cluster in this test")

    monkeypatch.setattr(Runner, "_ensure_cluster", cannot_start)
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir()
    options = RunnerOptions(jvm_warmup_s=0, write_report=False)

    with pytest.raises(ExperimentError):
        Runner(_experiment(), layout, options).run()

    written = read_plan_file(layout)
    assert written is not None
    assert written.plan == plan_json(expand(_experiment()))
    assert read_manifest(layout.manifest).plan_digest == expand(_experiment()).digest

    text = layout.plan.read_text()
    with pytest.raises(ExperimentError):
        Runner(_experiment(), layout, options).run()  # resumed: the same plan, kept
    assert layout.plan.read_text() == text
    with pytest.raises(ExperimentError, match="the experiment file changed"):
        Runner(_experiment(iterations=3), layout, options)


def test_a_run_before_plan_json_gets_its_plan_when_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cannot_start(self: Runner, trial: Trial) -> Any:
        raise ClusterError("no cluster in this test")

    monkeypatch.setattr(Runner, "_ensure_cluster", cannot_start)
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir()
    options = RunnerOptions(jvm_warmup_s=0, write_report=False)
    with pytest.raises(ExperimentError):
        Runner(_experiment(), layout, options).run()
    layout.plan.unlink()  # the layout of a run written before plan.json existed

    with pytest.raises(ExperimentError, match="its cluster"):
        Runner(_experiment(), layout, options).run()

    assert stored_plan(layout) == expand(_experiment())


def test_outline_of_a_manifest_expands_its_experiment(tmp_path: Path) -> None:
    experiment = _experiment()
    outline = outline_of_manifest(manifest(experiment=experiment.to_file_dict()))
    assert outline == PlanOutline.model_validate(plan_json(expand(experiment)))


def test_the_digest_of_a_file_with_faults_is_what_it_was_before() -> None:
    """Before each fault kind had its own fields, every fault of the file dict carried
    ``offset``, ``rate`` and ``iops`` (null when not its kind's): the digest still reads
    them so, and a run with faults that an earlier casslab started resumes."""
    faults = [
        {"at": "5s", "kind": "kill", "target": 1, "for": "2s"},
        {"at": "9s", "kind": "clock-jump", "target": "node1", "for": "2s", "offset": "-1s"},
    ]
    experiment = _experiment(faults=faults)
    data = experiment.to_file_dict()
    for name in [*NodeIsolation.model_fields, *LATER_CLUSTER_FIELDS]:
        del data["cluster"][name]
    del data["client_dc"], data["lww"], data["discover"], data["clients"], data["claims"]
    del data["profile"], data["after_operations"]
    data["faults"] = [
        {"at": 5.0, "kind": "kill", "target": 1, "for": 2.0}
        | {"offset": None, "rate": None, "iops": None},
        {"at": 9.0, "kind": "clock-jump", "target": 1, "for": 2.0}
        | {"offset": -1000.0, "rate": None, "iops": None},
    ]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))

    assert experiment_digest(experiment) == hashlib.sha256(text.encode()).hexdigest()


PINNED_FILE = """
name: dg
cluster: {nodes: 1, heap: 512M}
factors:
  table.compaction: [STCS, LCS]
workload: write
measure: "duration=5s"
iterations: 2
"""


def test_the_digest_of_a_plain_file_is_the_one_earlier_casslab_computed() -> None:
    """Pinned: casslab as of commit 195a6c8 gave this file this digest, so a run it started
    resumes under every later casslab (a new field left in the digest at its default, as
    ``claims: []`` once was, changes every digest and refuses every resume)."""
    experiment = experiment_loader.parse(PINNED_FILE)
    assert experiment_digest(experiment) == (
        "af24c0826a3594df98266dd88496b074321328b14efe58224450bb54701e0d83"
    )


OPERATIONS_FILE = """
name: addnode-digest
workload: write
measure: "duration=60s"
iterations: 1
faults:
  - {at: 5s, kind: add-node, target: 2}
  - {at: 30s, kind: restart, target: 1}
"""


def test_the_digest_of_a_file_with_operations_is_the_one_earlier_casslab_computed() -> None:
    """Pinned: casslab as of commit 385fe4d (before add-node's datacenter: and
    after_operations:) gave this file this digest; fields added later stay out of it while
    unset, and change it when set."""
    experiment = experiment_loader.parse(OPERATIONS_FILE)
    pinned = "8c826aa954234036dcca3e4ec4ab9d5b70e04c3f30439ff9f96c6d6de6d27dc8"
    assert experiment_digest(experiment) == pinned
    ended = experiment_loader.parse(OPERATIONS_FILE + "after_operations: 5s\n")
    assert experiment_digest(ended) != pinned
    sites = OPERATIONS_FILE + (
        "cluster: {topology: far-apart}\nclient_dc: utah\nschema: {replication: "
        "{class: NetworkTopologyStrategy, utah: 1, wisconsin: 1, clemson: 1}}\n"
    )
    placed = sites.replace("target: 2}", "target: 4, datacenter: utah}")
    unplaced = sites.replace("target: 2}", "target: 4}")
    assert experiment_digest(experiment_loader.parse(placed)) != experiment_digest(
        experiment_loader.parse(unplaced)
    )


def test_claims_are_no_part_of_the_digest() -> None:
    """Claims say how the report judges the trials, not which trials run: a run started
    before its file had claims resumes after they were added."""
    claimed = (
        PINNED_FILE
        + """kpis: [op_rate]
claims:
  - says: "LCS is slower"
    source: "seed 001, table 1"
    compare: {a: {table.compaction: LCS}, b: {table.compaction: STCS}}
    kpi: op_rate
    direction: lower
"""
    )
    plain = experiment_loader.parse(PINNED_FILE + "kpis: [op_rate]\n")
    assert experiment_digest(experiment_loader.parse(claimed)) == experiment_digest(plain)
