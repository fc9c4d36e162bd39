"""The nodes that join or leave an isolated cluster (pure): the next node's address,
namespace, host end and cgroup, and the refusals before anything starts (a topology, a
new node past this host's free memory)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from casslab.cluster.isolated import network, sizes
from casslab.cluster.isolated.cluster import IsolatedCluster, IsolatedRing, joining_node
from casslab.cluster.isolated.isolated_state import Bridge, Isolated, Isolation
from casslab.cluster.model import ClusterSpec, ClusterState, Node
from casslab.errors import ConfigError
from casslab.host.cgroup_limits import NodeLimits

BRIDGE = Bridge(name="clb3fa9c1", address="10.213.4.1", prefix=24)
LIMITS = NodeLimits(cpus=0.5, memory_mib=1536)


def _record(bridge: Bridge | None) -> Isolated:
    isolation = Isolation.NETNS if bridge is not None else Isolation.PROCESS
    return Isolated(
        isolation=isolation,
        limits=LIMITS,
        cluster_id="3fa9c1",
        cgroup_root="casslab/3fa9c1",
        bridge=bridge,
    )


def _local_node(number: int) -> Node:
    return Node(
        number=number,
        address=f"127.0.0.{number}",
        native_port=9042,
        storage_port=7000,
        jmx_port=7190 + number,
        directory=Path(f"/c/iso/node{number}"),
    )


def test_node_n_takes_the_bridges_n_plus_first_address() -> None:
    # as plan() laid nodes 1..3 out: the host .1, node n at .n+1
    _, planned = network.plan("3fa9c1", network.ipaddress.IPv4Network("10.213.4.0/24"), 3)
    assert [network.node_address(BRIDGE, n) for n in (1, 2, 3)] == planned
    assert network.node_address(BRIDGE, 4) == "10.213.4.5"
    assert network.node_address(BRIDGE, 253) == "10.213.4.254"
    with pytest.raises(ConfigError, match=r"room for nodes 1 to 253; .* larger --subnet"):
        network.node_address(BRIDGE, 254)


def test_a_joining_netns_node_gets_its_namespace_veth_address_and_cgroup() -> None:
    node = joining_node(_local_node(3), _record(BRIDGE))
    assert (node.address, node.jmx_address) == ("10.213.4.4", "10.213.4.4")
    assert (node.netns, node.host_interface) == ("casslab-3fa9c1-n3", "clv3fa9c1n3")
    assert node.cgroup == "casslab/3fa9c1/node3"
    assert (node.jmx_port, node.directory) == (7193, Path("/c/iso/node3"))


def test_a_joining_process_node_stays_on_loopback_in_its_own_cgroup() -> None:
    node = joining_node(_local_node(3), _record(None))
    assert (node.address, node.netns, node.host_interface) == ("127.0.0.3", None, None)
    assert node.cgroup == "casslab/3fa9c1/node3"


@pytest.mark.parametrize(
    ("limits", "heap_mib", "available_mib", "said"),
    [
        (LIMITS, 512, 4096, None),
        (LIMITS, 512, 1535, "needs 1536 MiB (its cgroup's memory limit) but this host has 1535"),
        (NodeLimits(cpus=0.5), 1024, 1000, "needs 1024 MiB (its heap) but this host has 1000"),
        (NodeLimits(cpus=0.5), 1024, 1024, None),
    ],
)
def test_a_new_node_past_the_hosts_free_memory_is_refused(
    limits: NodeLimits, heap_mib: int, available_mib: int, said: str | None
) -> None:
    problem = sizes.join_problem(limits, heap_mib, available_mib)
    assert problem == said if said is None else said in (problem or "")


def _cluster(spec: ClusterSpec) -> IsolatedCluster:
    nodes = [
        joining_node(_local_node(n), _record(BRIDGE)).model_copy(
            update={"datacenter": "dc1" if spec.topology else None}
        )
        for n in range(1, spec.nodes + 1)
    ]
    return IsolatedCluster(
        ClusterState(
            spec=spec,
            cassandra_version="5.0.9",
            lib_dir=Path("/lib"),
            java=Path("/java"),
            java_feature=17,
            heap="512M",
            directory=Path("/c/iso"),
            nodes=nodes,
            settings={},
            created_at=datetime(2026, 1, 1, tzinfo=UTC),
            isolated=_record(BRIDGE),
        )
    )


def test_a_cluster_with_datacenters_refuses_a_new_node_saying_why() -> None:
    cluster = _cluster(ClusterSpec(name="iso", topology="dc1:1,dc2:1", heap="512M"))
    with pytest.raises(ConfigError, match=r"'iso' has datacenters over emulated WAN links"):
        IsolatedRing(cluster).check_add()


def test_the_isolated_backend_offers_ring_members_and_node_versions() -> None:
    capabilities = _cluster(ClusterSpec(name="iso", nodes=2, heap="512M")).capabilities()
    assert isinstance(capabilities.ring, IsolatedRing)
    assert capabilities.versions is not None
    assert not capabilities.missing
