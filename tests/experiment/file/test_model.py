"""Records of the experiment file and their small parsers."""

from __future__ import annotations

import pytest

from casslab.cluster import Isolation, NodeIsolation
from casslab.experiment.file.experiment_model import (
    ClusterSection,
    Experiment,
    FactorKind,
    Order,
    OrderKind,
    parse_duration_s,
    parse_factor_name,
)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("10s", 10.0),
        ("5m", 300.0),
        ("1h", 3600.0),
        ("500ms", 0.5),
        ("1.5s", 1.5),
        ("0s", 0.0),
        (30, 30.0),
        (2.5, 2.5),
        (" 20m ", 1200.0),
    ],
)
def test_parse_duration(text: object, seconds: float) -> None:
    assert parse_duration_s(text) == seconds


@pytest.mark.parametrize("text", ["soon", "10 minutes", "-5s", -1, True, None, "5w", ""])
def test_parse_duration_rejects(text: object) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration_s(text)


@pytest.mark.parametrize(
    ("name", "kind", "keys"),
    [
        ("config.memtable_flush_writers", FactorKind.CONFIG, ("memtable_flush_writers",)),
        (
            "config.memtable_flush_writers+memtable_cleanup_threshold",
            FactorKind.CONFIG,
            ("memtable_flush_writers", "memtable_cleanup_threshold"),
        ),
        ("table.compaction", FactorKind.TABLE, ("compaction",)),
        ("table.gc_grace_seconds", FactorKind.TABLE, ("gc_grace_seconds",)),
        ("workload", FactorKind.WORKLOAD, ()),
        ("threads", FactorKind.THREADS, ()),
        ("rate", FactorKind.RATE, ()),
        ("nodes", FactorKind.NODES, ()),
        ("cluster.isolation", FactorKind.CLUSTER, ("isolation",)),
        ("cluster.node_size", FactorKind.CLUSTER, ("node_size",)),
        ("cluster.cpus", FactorKind.CLUSTER, ("cpus",)),
        ("cluster.memory", FactorKind.CLUSTER, ("memory",)),
        ("cluster.version", FactorKind.CLUSTER, ("version",)),
        ("cluster.heap", FactorKind.CLUSTER, ("heap",)),
    ],
)
def test_parse_factor_name(name: str, kind: FactorKind, keys: tuple[str, ...]) -> None:
    assert parse_factor_name(name) == (kind, keys)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("foo", "unknown factor kind 'foo'"),
        ("cluster.nodes", r"unknown cluster factor .*the node count is the factor nodes"),
        ("cluster.jdk", r"a cluster factor is one of cluster\.isolation, cluster\.node_size"),
        ("cluster", "unknown factor kind"),
        ("config.", "malformed cassandra.yaml key"),
        ("config.Memtable", "malformed cassandra.yaml key"),
        ("config.a+a", "names a key twice"),
        ("table.compactoin", r"did you mean table\.compaction"),
        ("workload.x", "unknown factor kind"),
    ],
)
def test_parse_factor_name_rejects(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_factor_name(name)


def test_order_forms() -> None:
    assert Order.model_validate("sequential").kind is OrderKind.SEQUENTIAL
    assert Order.model_validate({"kind": "randomized", "seed": 7}).seed == 7


def test_experiment_round_trips_through_its_file_dict() -> None:
    experiment = Experiment.model_validate(
        {
            "name": "x",
            "schema": {"keyspace": "ks"},
            "table": {"compaction": "LCS"},
            "factors": {"threads": [1, 2]},
            "workload": "write",
            "warmup": "10s",
        }
    )
    assert experiment.warmup_s == 10.0
    data = experiment.to_file_dict()
    assert data["schema"]["keyspace"] == "ks"
    assert Experiment.model_validate(data) == experiment


def test_the_cluster_section_gives_every_node_its_isolation() -> None:
    section = ClusterSection.model_validate(
        {"nodes": 2, "heap": "1G", "isolation": "netns", "node_size": "t2.small", "cpus": 1}
    )
    assert section.node_isolation == NodeIsolation(
        isolation=Isolation.NETNS, node_size="t2.small", cpus=1.0
    )
    assert not section.plain
    assert ClusterSection(nodes=3).plain
    assert NodeIsolation().plain


def test_the_cluster_section_takes_jvm_options_as_casslab_up_does() -> None:
    section = ClusterSection.model_validate(
        {"jvm_options": ["-XX:TieredStopAtLevel=1", "-Dcassandra.ring_delay_ms=5000"]}
    )
    assert section.jvm_options == ("-XX:TieredStopAtLevel=1", "-Dcassandra.ring_delay_ms=5000")
    assert ClusterSection().jvm_options == ()
    with pytest.raises(ValueError, match=r"'-Xmx2G': the heap is --heap \(heap: in an"):
        ClusterSection.model_validate({"jvm_options": ["-Xmx2G"]})
    with pytest.raises(ValueError, match=r"'-jar x.jar': casslab adds system properties"):
        ClusterSection.model_validate({"jvm_options": ["-jar x.jar"]})


def test_isolation_fields_at_their_defaults_round_trip_an_older_file_dict() -> None:
    """A manifest written before node isolation has no such fields: it still loads."""
    data = Experiment.model_validate({"name": "x", "workload": "write"}).to_file_dict()
    for name in NodeIsolation.model_fields:
        del data["cluster"][name]
    assert Experiment.model_validate(data).cluster.node_isolation == NodeIsolation()
