"""What a trial's cluster is built from, and what the runner does to get it (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from casslab.cluster import BackendKind, Isolation, cluster_spec
from casslab.experiment.design.cluster_setup import (
    SHAPE_FIELDS,
    ClusterAction,
    ClusterSetup,
    cluster_action,
    in_file_words,
    shape_change,
)
from casslab.experiment.design.plan_records import RestartReason

PLAIN = ClusterSetup.of(2, "1G", "5.0.9", {"auto_snapshot": False})


@pytest.mark.parametrize(
    ("isolation", "action", "changed"),
    [
        ({}, ClusterAction.KEEP, None),
        ({"isolation": "process"}, ClusterAction.KEEP, None),  # the default, said
        ({"isolation": Isolation.NETNS}, ClusterAction.RECREATE, "isolation"),
        ({"node_size": "t2.small"}, ClusterAction.RECREATE, "node_size"),
        ({"cpus": 0.5}, ClusterAction.RECREATE, "cpus"),
        ({"memory": "2GiB"}, ClusterAction.RECREATE, "memory"),
        ({"cpu_scale": 0.5}, ClusterAction.RECREATE, "cpu_scale"),
        ({"cpuset": "1"}, ClusterAction.RECREATE, "cpuset"),
        ({"io_read": "50MiB"}, ClusterAction.RECREATE, "io_read"),
        ({"io_write": "20MiB"}, ClusterAction.RECREATE, "io_write"),
        ({"cpus": 0.5, "isolation": "netns"}, ClusterAction.RECREATE, "isolation"),
    ],
)
def test_a_change_of_isolation_or_a_limit_makes_a_new_cluster(
    isolation: dict[str, Any], action: ClusterAction, changed: str | None
) -> None:
    wanted = ClusterSetup.of(2, "1G", "5.0.9", {"auto_snapshot": False}, isolation)
    assert cluster_action(PLAIN, wanted) is action
    assert shape_change(PLAIN, wanted) == changed


def test_every_shape_field_has_its_restart_reason() -> None:
    assert {RestartReason(field) for field in SHAPE_FIELDS} <= set(RestartReason)


def test_a_settings_change_alone_restarts_isolated_nodes_in_place() -> None:
    netns = {"isolation": "netns", "node_size": "t2.small"}
    current = ClusterSetup.of(1, None, None, {"a": 1}, netns)
    assert cluster_action(current, ClusterSetup.of(1, None, None, {"a": 2}, netns)) is (
        ClusterAction.RESTART
    )


def test_spec_fields_make_the_cluster_spec() -> None:
    setup = ClusterSetup.of(
        2, "512M", None, {}, {"isolation": "netns", "node_size": "t2.micro", "cpu_scale": 0.5}
    )
    spec = cluster_spec(**setup.spec_fields())
    assert (spec.nodes, spec.heap, spec.version) == (2, "512M", None)
    assert (spec.isolation, spec.node_size, spec.cpu_scale) == (Isolation.NETNS, "t2.micro", 0.5)
    assert spec.backend is BackendKind.ISOLATED
    assert cluster_spec(**PLAIN.spec_fields()).backend is BackendKind.LOCAL


@pytest.mark.parametrize(
    ("setup", "text", "values"),
    [
        (PLAIN, '2 node(s), heap 1G, Cassandra 5.0.9, settings {"auto_snapshot": false}', {}),
        (
            ClusterSetup.of(1, None, None, {}, {"isolation": "netns", "cpus": 0.5}),
            "1 node(s), default heap, default Cassandra, isolation netns, cpus 0.5",
            {"isolation": "netns", "cpus": "0.5"},
        ),
        (
            ClusterSetup.of(3, None, None, {}, {"node_size": "t2.small", "memory": "1GiB"}),
            "3 node(s), default heap, default Cassandra, node size t2.small, memory 1GiB",
            {"node_size": "t2.small", "memory": "1GiB"},
        ),
    ],
)
def test_describe(setup: ClusterSetup, text: str, values: dict[str, str]) -> None:
    assert setup.describe() == text
    assert setup.isolation_values() == values


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("or give --cpus and --memory", "or give cpus and memory"),
        ("add --cpu-scale 0.5 to scale", "add cpu_scale 0.5 to scale"),
        ("--cpuset 0-3: CPU(s) 3 do not exist", "cpuset 0-3: CPU(s) 3 do not exist"),
        (
            "choose a smaller --heap or a larger --node-size",
            "choose a smaller heap or a larger node_size",
        ),
        ("--io-read '1XB'", "io_read '1XB'"),
        ("--nodes 10", "--nodes 10"),  # not an isolation option: left as it is
    ],
)
def test_in_file_words(message: str, words: str) -> None:
    assert in_file_words(message) == words
