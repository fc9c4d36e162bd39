"""The trial runner and the nodes' isolation, on a fake cluster and a fake engine: a change
of ``cluster.isolation`` or ``cluster.node_size`` makes a new cluster whose spec carries
the level, and a run warns before its first trial when its nodes oversubscribe the host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from casslab.cluster import BackendKind, ClusterSpec, Isolation
from casslab.cluster.model import spec_field
from casslab.experiment.design.cluster_setup import ClusterAction
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import events
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions
from casslab.store.layout import RunLayout
from fakes import Calls, FakeCluster, fake_factory, install_fake_engine


def _experiment(**fields: Any) -> Experiment:
    base: dict[str, Any] = {
        "name": "isolation",
        "cluster": {"nodes": 2, "heap": "512M"},
        "workload": "write",
        "measure": "duration=2s -rate threads=4",
        "iterations": 2,
        "order": "sequential",
    }
    return Experiment.model_validate({**base, **fields})


def _runner(
    tmp_path: Path, experiment: Experiment, specs: list[ClusterSpec], seen: list[events.Event]
) -> Runner:
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir(exist_ok=True)
    options = RunnerOptions(
        results_root=tmp_path,
        jvm_warmup_s=0,
        write_report=False,
        cluster_root=tmp_path / "c",
        base_address="127.0.232.1",
        jmx_port_base=9120,
    )
    make = fake_factory(Calls())

    def create(spec: ClusterSpec, root: Path | None, *, fresh: bool) -> FakeCluster:
        specs.append(spec)
        cluster: FakeCluster = make(spec, root, fresh=fresh)
        return cluster

    return Runner(
        experiment,
        layout,
        options,
        on_event=seen.append,
        create_cluster=create,
        metrics_sources=lambda _cluster, _pid: [],
    )


@pytest.fixture(autouse=True)
def engine_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return install_fake_engine(tmp_path, monkeypatch)


def _actions(seen: list[events.Event]) -> list[tuple[str, ClusterAction]]:
    return [(e.trial.trial_id, e.action) for e in seen if isinstance(e, events.ClusterChanged)]


def test_isolation_levels_recreate_the_cluster_and_its_spec_carries_netns(
    tmp_path: Path,
) -> None:
    specs: list[ClusterSpec] = []
    seen: list[events.Event] = []
    experiment = _experiment(factors={"cluster.isolation": ["process", "netns"]})

    runner = _runner(tmp_path, experiment, specs, seen)
    plan = runner.plan
    runner.run()

    assert _actions(seen) == [
        ("isolation=process/1", ClusterAction.START),
        ("isolation=netns/1", ClusterAction.RECREATE),
    ]
    assert [t.trial_id for t in plan.trials if t.restart] == [tid for tid, _ in _actions(seen)]
    assert [(spec_field(s, "isolation"), s.backend) for s in specs] == [
        (Isolation.PROCESS, BackendKind.LOCAL),
        (Isolation.NETNS, BackendKind.ISOLATED),
    ]
    for spec in specs:
        assert (spec.nodes, spec.heap, spec.jmx_port_base) == (2, "512M", 9120)
        assert spec.base_address == "127.0.232.1"  # the plain nodes'; netns ignores it
    finished = [e.result for e in seen if isinstance(e, events.TrialFinished)]
    assert [r.status.value for r in finished] == ["ok"] * 4


def test_node_sizes_recreate_and_keep_the_sections_limits(tmp_path: Path) -> None:
    specs: list[ClusterSpec] = []
    seen: list[events.Event] = []
    experiment = _experiment(
        cluster={"nodes": 1, "isolation": "netns", "cpu_scale": 0.5, "io_write": "20MiB"},
        factors={"cluster.node_size": ["t2.micro", "t2.small", "t2.medium"]},
        iterations=1,
        order={"kind": "randomized", "seed": 4},
    )

    runner = _runner(tmp_path, experiment, specs, seen)
    order = [t.node_isolation.node_size for t in runner.plan.trials]
    runner.run()

    assert [s.node_size for s in specs] == order
    assert sorted(order, key=str) == ["t2.medium", "t2.micro", "t2.small"]
    assert {(s.isolation, s.cpu_scale, s.io_write) for s in specs} == {
        (Isolation.NETNS, 0.5, "20MiB")
    }
    assert [a for _, a in _actions(seen)] == [
        ClusterAction.START,
        ClusterAction.RECREATE,
        ClusterAction.RECREATE,
    ]


def test_a_run_warns_before_its_first_trial_when_the_nodes_oversubscribe_the_host(
    tmp_path: Path,
) -> None:
    seen: list[events.Event] = []
    experiment = _experiment(cluster={"nodes": 2, "heap": "512M", "cpus": 1000}, iterations=1)

    _runner(tmp_path, experiment, [], seen).run()

    first_trial = next(i for i, e in enumerate(seen) if isinstance(e, events.TrialStarted))
    warnings = [(i, e.message) for i, e in enumerate(seen) if isinstance(e, events.RunWarning)]
    assert len(warnings) == 1
    index, message = warnings[0]
    assert index < first_trial
    assert message.startswith("cluster of 2 node(s), heap 512M, default Cassandra, cpus 1000: ")
    assert "2 node(s) x 1000 CPU = 2000 CPUs on a host with" in message
    assert "add cpu_scale " in message  # in the experiment file's words, not --cpu-scale


def test_plain_nodes_give_no_warning(tmp_path: Path) -> None:
    seen: list[events.Event] = []
    _runner(tmp_path, _experiment(iterations=1), [], seen).run()
    assert not [e for e in seen if isinstance(e, events.RunWarning)]


def test_an_engine_pinned_into_the_nodes_cpuset_is_warned_of() -> None:
    """--engine-cpus 1 with nodes on cpuset 0-1: the engine would take CPU from the nodes
    it measures; disjoint CPUs give no warning."""
    from casslab.experiment.design.plan_expansion import expand
    from casslab.experiment.run.host_facts import cluster_warnings

    shared = expand(_experiment(cluster={"nodes": 1, "heap": "512M", "cpuset": "0-1"}))
    (warning,) = [w for w in cluster_warnings(shared.trials, "1") if "engine" in w]
    assert "--engine-cpus 1 shares CPU(s) 1 with the nodes' cpuset 0-1" in warning
    apart = expand(_experiment(cluster={"nodes": 1, "heap": "512M", "cpuset": "0"}))
    assert not [w for w in cluster_warnings(apart.trials, "1") if "engine" in w]
