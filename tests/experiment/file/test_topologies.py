"""Topologies in experiment files: cluster.topology (a preset or an inline definition, in
the section or as a factor), client_dc, replication per topology, and what each trial's
cluster and load engine get; every mistake a problem before anything starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from casslab.cluster import BackendKind, ClusterSpec, Isolation, cluster_spec
from casslab.engine_contract.workload_spec import Connection
from casslab.errors import ExperimentValidationError
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.design.plan_records import Plan
from casslab.experiment.file import experiment_loader
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.file.replication import replicas_per_dc, replication_for
from casslab.experiment.run.host_facts import cluster_warnings
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions
from casslab.store.layout import RunLayout
from fakes import Calls, FakeCluster, fake_factory, install_fake_engine

NTS = "NetworkTopologyStrategy"
PER_TOPOLOGY = {
    "one-host": {"class": NTS, "dc1": 3},
    "one-site": {"class": NTS, "utah": 3},
    "far-apart": {"class": NTS, "utah": 1, "wisconsin": 1, "clemson": 1},
}


def _only(*names: str) -> dict[str, Any]:
    """The experiment's factors and replication for these topologies."""
    return {
        "factors": {"cluster.topology": list(names)},
        "schema": {"replication": {n: PER_TOPOLOGY[n] for n in names}},
    }


def _data(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "topo",
        "cluster": {"heap": "512M", "config": {"auto_snapshot": False}},
        "schema": {"replication": PER_TOPOLOGY},
        "factors": {"cluster.topology": ["one-host", "one-site", "far-apart"]},
        "preload": "write n=1000 cl=ALL -rate threads=4",
        "workload": "write",
        "measure": "duration=50s cl=QUORUM -rate threads=8",
        "iterations": 2,
        "order": "sequential",
    }
    data.update(fields)
    return data


def _load(data: dict[str, Any]) -> Experiment:
    return experiment_loader.parse(yaml.safe_dump(data, sort_keys=False), "topo.yaml")


def _problems(data: dict[str, Any]) -> list[str]:
    with pytest.raises(ExperimentValidationError) as caught:
        _load(data)
    return caught.value.problems


def _plan(**fields: Any) -> Plan:
    return expand(_load(_data(**fields)))


# ---------------------------------------------------------------- what the trials get


def test_each_topology_level_is_a_new_cluster_of_its_own_shape() -> None:
    plan = _plan()
    rows = [(t.cell_id, t.nodes, t.node_isolation.isolation, t.restart_reason) for t in plan.trials]
    assert [(cell, nodes, reason.value if reason else None) for cell, nodes, _, reason in rows] == [
        ("topology=one-host", 4, "first"),
        ("topology=one-host", 4, None),
        ("topology=one-site", 3, "topology"),
        ("topology=one-site", 3, None),
        ("topology=far-apart", 3, "topology"),
        ("topology=far-apart", 3, None),
    ]
    assert {isolation for _, _, isolation, _ in rows} == {Isolation.NETNS}  # implied
    assert [t.replication for t in plan.trials[::2]] == list(PER_TOPOLOGY.values())


def test_the_cluster_spec_carries_the_topology_and_its_links() -> None:
    far = _plan().trials[-1]
    spec = cluster_spec(name="t", settings=far.settings, **far.setup.spec_fields())
    assert spec.backend is BackendKind.ISOLATED
    assert (spec.nodes, spec.isolation, spec.heap) == (3, Isolation.NETNS, "512M")
    assert spec.topology is not None
    assert spec.topology.datacenters == ["utah", "wisconsin", "clemson"]
    assert {"-".join(link.sites): link.delay_ms for link in spec.links} == {
        "utah-wisconsin": 13,
        "clemson-utah": 22,
        "clemson-wisconsin": 11,
    }


def test_the_load_runs_against_client_dc_or_the_topologys_first_datacenter() -> None:
    defaulted = _plan()
    assert [t.local_dc for t in defaulted.trials[::2]] == ["dc1", "utah", "utah"]
    assert all(t.client_dc is None for t in defaulted.trials)
    chosen = _plan(**_only("far-apart"), client_dc="clemson")
    assert {t.local_dc for t in chosen.trials} == {"clemson"}
    plain = expand(_load(_data(factors={}, schema={})))
    assert {t.local_dc for t in plain.trials} == {None}  # no topology: no local DC


def test_the_plan_says_each_trials_topology_and_the_default_client_dc() -> None:
    plan = _plan()
    far = plan.trials[-1].setup
    assert far.isolation_values() == {
        "isolation": "netns",
        "topology": "far-apart (utah:1,wisconsin:1,clemson:1)",
        "links": "utah-wisconsin=13ms,clemson-utah=22ms,clemson-wisconsin=11ms",
    }
    assert "topology far-apart (utah:1,wisconsin:1,clemson:1)" in far.describe()
    notes = cluster_warnings(plan.trials)
    assert notes == [
        f"topology {name}: no client_dc given: the load engine runs against datacenter {dc} "
        "(the topology's first; set client_dc to choose another)"
        for name, dc in [("far-apart (utah:1,wisconsin:1,clemson:1)", "utah")]
    ]  # one datacenter: no choice to state
    chosen = _plan(**_only("far-apart"), client_dc="utah")
    assert cluster_warnings(chosen.trials) == []


def test_the_section_topology_and_an_inline_definition() -> None:
    inline = {"name": "two-dc", "datacenters": "dc1:2,dc2:1", "links": ["dc1-dc2=20ms"]}
    plan = _plan(
        cluster={"heap": "512M", "topology": inline},
        factors={},
        schema={"replication": {"class": NTS, "dc1": 2, "dc2": 1}},
        client_dc="dc2",
    )
    trial = plan.trials[0]
    assert trial.topology is not None
    assert (trial.topology.name, trial.nodes, trial.local_dc) == ("two-dc", 3, "dc2")
    assert trial.replication == {"class": NTS, "dc1": 2, "dc2": 1}
    levels = _plan(
        factors={"cluster.topology": [{"datacenters": "a:1,b:1"}, "one-site"]},
        schema={
            "replication": {
                "a:1,b:1": {"class": NTS, "a": 1, "b": 1},
                **_only("one-site")["schema"]["replication"],
            }
        },
    )
    assert [c.labels["cluster.topology"] for c in levels.cells] == ["a-1-b-1", "one-site"]


def test_a_file_without_topology_plans_as_before() -> None:
    plan = expand(_load(_data(factors={}, schema={})))
    assert all(t.topology is None for t in plan.trials)
    assert plan.trials[0].setup.isolation_values() == {}
    assert plan.trials[0].replication == {"class": "SimpleStrategy", "replication_factor": 1}


# ---------------------------------------------------------------- problems


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {"factors": {"cluster.topology": ["one-host", "far-away"]}},
            "factors.cluster.topology[1]: topology 'far-away': no such preset (did you mean "
            "'far-apart'?); the presets are one-host (dc1:4), one-site (utah:3), far-apart",
        ),
        (
            {"cluster": {"topology": "lan"}, "factors": {}},
            "cluster.topology: topology 'lan': no such preset; the presets are one-host",
        ),
        (
            {"factors": {"cluster.topology": [{"datacenters": "dc1:2", "links": ["dc1-x=2ms"]}]}},
            "factors.cluster.topology[0]: links dc1-x: datacenter(s) x are not in the topology",
        ),
        (
            {"client_dc": "wisconsin"},
            "client_dc: 'wisconsin' is not a datacenter of topology one-host (dc1:4) (dc1); "
            "name one of them, or leave client_dc out",
        ),
        (
            {"client_dc": "utah", "factors": {}, "schema": {}},
            "client_dc: 'utah': the cluster has no topology, so its nodes are all in "
            "datacenter1; give cluster.topology, or leave client_dc out",
        ),
        (
            {
                "schema": {
                    "replication": {
                        **PER_TOPOLOGY,
                        "far-apart": {"class": NTS, "utah": 1, "texas": 1},
                    }
                }
            },
            "schema.replication.far-apart.texas: datacenter 'texas' is not in topology "
            "far-apart (utah:1,wisconsin:1,clemson:1); name utah, wisconsin, clemson",
        ),
        (
            {
                "schema": {"replication": {"class": NTS, "dc1": 3}},
                "factors": {},
                "cluster": {"topology": "one-site"},
            },
            "schema.replication.dc1: datacenter 'dc1' is not in topology one-site (utah:3)",
        ),
        (
            {"schema": {"replication": {"class": NTS, "dc9": 1}}, "factors": {}},
            "schema.replication.dc9: datacenter 'dc9' is not in the cluster (no topology: its "
            "one datacenter is datacenter1); name datacenter1",
        ),
        (
            {"schema": {"replication": {k: v for k, v in PER_TOPOLOGY.items() if k != "one-site"}}},
            "schema.replication: no map for topology 'one-site'; add one-site: "
            "{class: NetworkTopologyStrategy, utah: 3}",
        ),
        (
            {"schema": {"replication": {**PER_TOPOLOGY, "two-dc": {"class": NTS, "a": 1}}}},
            "schema.replication.two-dc: not a topology of this experiment (its topologies: "
            "one-host, one-site, far-apart)",
        ),
        (
            {"schema": {"replication": PER_TOPOLOGY}, "factors": {}},
            "schema.replication: given per topology (one-host, one-site, far-apart), but the "
            "experiment has no cluster.topology",
        ),
        (
            {
                "schema": {"replication": {"class": "SimpleStrategy", "replication_factor": 3}},
                "factors": {"cluster.topology": ["far-apart"]},
            },
            "schema.replication: SimpleStrategy places replicas without regard to datacenters, "
            "and topology far-apart (utah:1,wisconsin:1,clemson:1) has 3; use "
            "NetworkTopologyStrategy, e.g. {class: NetworkTopologyStrategy, utah: 1, "
            "wisconsin: 1, clemson: 1}",
        ),
        (
            {
                "schema": {"replication": {"class": NTS, "replication_factor": 3}},
                "factors": {"cluster.topology": ["far-apart"]},
            },
            "schema.replication: 3 replicas in datacenter utah, which has 1 node(s) in topology "
            "far-apart (utah:1,wisconsin:1,clemson:1); Cassandra would keep 1 copies, and "
            "QUORUM could not be met",
        ),
        (
            {"cluster": {"heap": "512M", "isolation": "process"}},
            "cluster.isolation: process: a topology's datacenters and links need nodes in "
            "network namespaces; write isolation: netns, or leave it out",
        ),
        (
            {
                "factors": {
                    "cluster.topology": ["one-site"],
                    "cluster.isolation": ["process", "netns"],
                }
            },
            "factors.cluster.isolation[0]: process: a topology's datacenters and links need",
        ),
        (
            {"factors": {"cluster.topology": ["one-site"], "nodes": [1, 3]}},
            "factors.nodes: a topology gives the node count; vary cluster.topology instead",
        ),
        (
            {"cluster": {"heap": "512M", "nodes": 3}},
            "cluster.nodes: 3, but topology one-host (dc1:4) has 4; leave nodes out",
        ),
    ],
)
def test_a_topology_mistake_is_a_problem_before_anything_starts(
    fields: dict[str, Any], expected: str
) -> None:
    problems = _problems(_data(**fields))
    assert any(p.startswith(expected) for p in problems), problems


def test_the_heap_is_checked_against_the_memory_limit_with_a_topology_factor() -> None:
    problems = _problems(_data(**_only("one-site"), cluster={"heap": "4G", "memory": "1GiB"}))
    assert problems == [
        "cluster.heap: heap 4G does not fit in the memory limit of 1024 MiB per node; choose "
        "a smaller heap or more memory"
    ]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {
                "factors": {"cluster.topology": ["far-apart"]},
                "schema": {"replication": {"class": NTS, "wisconsin": 1, "clemson": 1}},
                "measure": "duration=50s cl=LOCAL_QUORUM -rate threads=8",
            },
            "workload: cl=LOCAL_QUORUM from datacenter utah (client_dc, else the topology's "
            "first) finds no replica there",
        ),
        (
            {
                "factors": {"cluster.topology": ["far-apart"]},
                "schema": {"replication": {"class": NTS, "utah": 1, "clemson": 1}},
                "client_dc": "wisconsin",
                "preload": "write n=1000 -rate threads=4",  # LOCAL_ONE, stress's default
            },
            "preload: cl=LOCAL_ONE from datacenter wisconsin",
        ),
        (
            {"measure": "duration=50s cl=THREE -rate threads=8", "factors": {}, "schema": {}},
            "workload: cl=THREE needs 3 replicas, but the replication {'class': "
            "'SimpleStrategy', 'replication_factor': 1} keeps 1 in the cluster",
        ),
        (
            {"workload": "write -node 127.0.0.1 datacenter=utah"},
            "workload: -node datacenter=utah: an experiment chooses the load's datacenter "
            "once, for the preload and every measured command: write client_dc: utah instead",
        ),
    ],
)
def test_a_consistency_level_that_cannot_be_met_is_a_problem(
    fields: dict[str, Any], expected: str
) -> None:
    problems = _problems(_data(**fields))
    assert any(p.startswith(expected) for p in problems), problems


@pytest.mark.parametrize("cl", ["LOCAL_ONE", "LOCAL_QUORUM", "EACH_QUORUM", "QUORUM"])
def test_without_a_topology_every_consistency_level_is_accepted(cl: str) -> None:
    """One datacenter: LOCAL_* and EACH_QUORUM count the replicas ONE and QUORUM count."""
    _load(_data(factors={}, schema={}, measure=f"duration=50s cl={cl} -rate threads=8"))


def test_a_topology_with_each_quorum_and_local_levels_loads() -> None:
    _load(_data(measure="duration=50s cl=EACH_QUORUM -rate threads=8"))
    _load(_data(measure="duration=50s cl=LOCAL_QUORUM -rate threads=8", client_dc=None))


# ---------------------------------------------------------------- replication, pure


@pytest.mark.parametrize(
    ("replication", "sites", "counts"),
    [
        ({"class": NTS, "a": 2, "b": 1}, {"a": 2, "b": 1, "c": 1}, {"a": 2, "b": 1, "c": 0}),
        ({"class": NTS, "replication_factor": 2, "b": 1}, {"a": 3, "b": 1}, {"a": 2, "b": 1}),
        ({"class": NTS, "a": "3"}, {"a": 3}, {"a": 3}),
        ({"class": NTS, "a": "3/1"}, {"a": 3}, {"a": None}),  # transient: not counted
        ({"class": "SimpleStrategy", "replication_factor": 2}, {"a": 3}, {"a": 2}),
        ({"class": "SimpleStrategy", "replication_factor": 2}, {"a": 1, "b": 1}, {}),
    ],
)
def test_replicas_per_dc(
    replication: dict[str, Any], sites: dict[str, int], counts: dict[str, int | None]
) -> None:
    assert replicas_per_dc(replication, sites) == counts


def test_replication_for_picks_the_topologys_map() -> None:
    assert replication_for(PER_TOPOLOGY, "one-site") == {"class": NTS, "utah": 3}
    one = {"class": NTS, "utah": 3}
    assert replication_for(one, "far-apart") == one == replication_for(one, None)
    with pytest.raises(KeyError):
        replication_for(PER_TOPOLOGY, None)


# ---------------------------------------------------------------- the runner


def test_the_runner_builds_each_topologys_cluster_and_runs_the_load_from_its_dc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_fake_engine(tmp_path, monkeypatch)
    specs: list[ClusterSpec] = []
    connections: list[Connection] = []
    make = fake_factory(Calls())

    def create(spec: ClusterSpec, root: Path | None, *, fresh: bool) -> FakeCluster:
        specs.append(spec)
        cluster: FakeCluster = make(spec, root, fresh=fresh)
        return cluster

    from casslab.experiment.run import runner as runner_module

    real_spec_for = runner_module.spec_for

    def spec_for(command: Any, connection: Connection, *args: Any, **kwargs: Any) -> Any:
        connections.append(connection)
        return real_spec_for(command, connection, *args, **kwargs)

    monkeypatch.setattr(runner_module, "spec_for", spec_for)
    experiment = _load(
        _data(
            **_only("one-site", "far-apart"),
            client_dc=None,
            preload=None,
            measure="duration=2s cl=QUORUM -rate threads=4",
            iterations=1,
        )
    )
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir()
    options = RunnerOptions(
        results_root=tmp_path, jvm_warmup_s=0, write_report=False, cluster_root=tmp_path / "c"
    )
    Runner(
        experiment,
        layout,
        options,
        create_cluster=create,
        metrics_sources=lambda _cluster, _pid: [],
    ).run()

    assert [(s.nodes, s.topology.text if s.topology else None, len(s.links)) for s in specs] == [
        (3, "utah:3", 0),
        (3, "utah:1,wisconsin:1,clemson:1", 3),
    ]
    assert {c.local_dc for c in connections} == {"utah"}
