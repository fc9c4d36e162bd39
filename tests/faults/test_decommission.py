"""What a decommission and a replace are refused before anything starts, from the
keyspaces' replication (pure), and the streamed bytes read from a node's JMX answer."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from casslab.cluster.capabilities import last_node_only
from casslab.cluster.local.replace import replace_problem
from casslab.cluster.model import Node
from casslab.errors import ConfigError
from casslab.faults.fault_kind import Target
from casslab.faults.fault_kinds import fault_kind
from casslab.faults.kinds.decommission.decommission_operation import (
    decommission_problem,
    replication_factors,
)
from casslab.faults.model import Fault
from casslab.faults.streaming import totals_of
from casslab.metrics.jmx_mbeans import JmxValue

SIMPLE = "org.apache.cassandra.locator.SimpleStrategy"
NTS = "org.apache.cassandra.locator.NetworkTopologyStrategy"


def _row(name: str, **replication: str) -> SimpleNamespace:
    return SimpleNamespace(keyspace_name=name, replication=replication)


def test_replication_factors_of_user_keyspaces_only() -> None:
    rows = [
        _row("system_distributed", **{"class": SIMPLE, "replication_factor": "3"}),
        _row("keyspace1", **{"class": SIMPLE, "replication_factor": "2"}),
        _row("geo", **{"class": NTS, "dc1": "3", "dc2": "1"}),
    ]
    assert replication_factors(rows) == {"keyspace1": 2, "geo": 3}


@pytest.mark.parametrize(
    ("number", "nodes", "factors", "said"),
    [
        (3, 3, {"keyspace1": 2}, None),
        (1, 1, {}, "node 1 is the cluster's last node"),
        (
            3,
            3,
            {"keyspace1": 3, "b": 1},
            "2 node(s) would hold keyspaces replicated more "
            "times: keyspace1 (RF 3); lower their replication factor or add a node first",
        ),
        (2, 2, {"keyspace1": 2, "geo": 3}, "geo (RF 3), keyspace1 (RF 2)"),
    ],
)
def test_a_decommission_below_the_replication_factor_is_refused(
    number: int, nodes: int, factors: dict[str, int], said: str | None
) -> None:
    problem = decommission_problem(number, nodes, factors)
    if said is None:
        assert problem is None
    else:
        assert problem is not None
        assert said in problem


def test_streamed_bytes_from_the_jmx_answer() -> None:
    prefix = "org.apache.cassandra.metrics:type=Streaming,name="
    answer = [
        JmxValue(object_name=prefix + "TotalOutgoingBytes", attribute="Count", value=2048.0),
        JmxValue(object_name=prefix + "TotalIncomingBytes", attribute="Count", value=7.0),
    ]
    assert totals_of(answer) == (2048, 7)
    assert totals_of(answer[:1]) is None


def test_cassandras_own_keyspaces_apart() -> None:
    rows = [
        _row("system_distributed", **{"class": SIMPLE, "replication_factor": "3"}),
        _row("system_local_only", **{"class": "org.apache.cassandra.locator.LocalStrategy"}),
        _row("keyspace1", **{"class": SIMPLE, "replication_factor": "2"}),
    ]
    assert replication_factors(rows, own=True) == {"system_distributed": 3, "system_local_only": 0}


@pytest.mark.parametrize(
    ("number", "nodes", "factors", "said"),
    [
        (2, 2, {"keyspace1": 2}, None),
        (3, 3, {}, None),
        (1, 1, {}, "node 1 is the cluster's last node: a replacement streams the old node's"),
        (
            2,
            3,
            {"keyspace1": 2, "b": 1, "a": 1},
            "keyspace(s) a, b at replication factor 1: node 2 holds the only copy of its "
            "ranges, which no replacement can stream; raise their replication factor",
        ),
    ],
)
def test_a_replace_that_would_lose_data_is_refused(
    number: int, nodes: int, factors: dict[str, int], said: str | None
) -> None:
    problem = replace_problem(number, nodes, factors)
    if said is None:
        assert problem is None
    else:
        assert problem is not None
        assert said in problem


def test_replace_is_a_node_operation_that_kills_its_target() -> None:
    kind = fault_kind("replace")
    assert (kind.target, kind.ends_when_done, kind.ends_jvm) == (Target.NODE, True, True)
    fault = Fault.model_validate({"at": 5, "kind": "replace", "target": 2})
    assert fault.describe() == "replace node 2 at 5 s until done"


def test_only_the_last_node_may_leave_and_it_is_said_before_it_streams() -> None:
    made = [
        Node(
            number=k,
            address=f"127.0.0.{k}",
            native_port=9042,
            storage_port=7000,
            jmx_port=7199,
            directory=Path(f"/n{k}"),
        )
        for k in (1, 2, 3)
    ]
    last_node_only("c", 3, made)
    with pytest.raises(ConfigError, match=r"node 2 of 'c' is not its last node \(3\)"):
        last_node_only("c", 2, made)
