"""The nodes that join or leave an isolated cluster (pure): the next node's address,
namespace, host end and cgroup (in its datacenter's block on a cluster with datacenters),
and the refusals before anything starts (a datacenter missing or unknown, a new node past
this host's free memory)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from casslab.cluster.isolated import network, sizes
from casslab.cluster.isolated.cluster import IsolatedCluster, IsolatedRing, joining_node
from casslab.cluster.isolated.isolated_state import Bridge, Isolated, Isolation
from casslab.cluster.local import grow
from casslab.cluster.model import ClusterSpec, ClusterState, Node, cluster_spec
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


SUBNET = network.ipaddress.IPv4Network("10.213.4.0/24")
SITES, SITE_ADDRESSES = network.plan_sites("3fa9c1", SUBNET, [("dc1", 2), ("dc2", 1)])


def _cluster(spec: ClusterSpec) -> IsolatedCluster:
    record = _record(BRIDGE)
    if spec.topology is not None:
        record = record.model_copy(update={"bridge": SITES[0], "sites": tuple(SITES)})
    placements = spec.topology.placements() if spec.topology is not None else []
    nodes = []
    for n in range(1, spec.nodes + 1):
        node = joining_node(_local_node(n), record)
        if placements:
            place = placements[n - 1]
            node = node.model_copy(
                update={
                    "address": SITE_ADDRESSES[n - 1],
                    "datacenter": place.datacenter,
                    "rack": place.rack,
                }
            )
        nodes.append(node)
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
            backend_state=record,
        )
    )


def test_a_joining_node_takes_the_first_free_address_of_its_datacenters_block() -> None:
    # dc1 is 10.213.4.0/25 (host .1, nodes .2 .3), dc2 10.213.4.128/25 (host .129, node .130)
    assert SITE_ADDRESSES == ["10.213.4.2", "10.213.4.3", "10.213.4.130"]
    assert network.free_address(SITES[0], SITE_ADDRESSES) == "10.213.4.4"
    assert network.free_address(SITES[1], SITE_ADDRESSES) == "10.213.4.131"
    # a node that left frees its address for the next that joins
    assert network.free_address(SITES[0], ["10.213.4.3", "10.213.4.130"]) == "10.213.4.2"
    full = [str(h) for h in network.ipaddress.IPv4Network("10.213.4.128/25").hosts()]
    with pytest.raises(ConfigError, match=r"datacenter dc2: its block 10.213.4.128/25 has no"):
        network.free_address(SITES[1], full)


def test_a_node_joining_a_datacenter_is_placed_on_its_site() -> None:
    two_racks = {"sites": [{"name": "dc1", "nodes": 2}, {"name": "dc2", "nodes": 1}], "racks": 2}
    cluster = _cluster(cluster_spec(name="iso", topology=two_racks, heap="512M"))
    ring = IsolatedRing(cluster)
    assert ring.check_add("dc2") == 4
    node = grow.next_node(cluster, "dc2")
    assert (node.number, node.datacenter, node.rack) == (4, "dc2", "r2")  # dc2 has r1 only
    assert (node.address, node.netns) == ("10.213.4.131", "casslab-3fa9c1-n4")
    node = grow.next_node(cluster, "dc1")  # dc1's r1 and r2 hold one each: the first
    assert (node.datacenter, node.rack, node.address) == ("dc1", "r1", "10.213.4.4")


def test_a_new_node_in_a_datacenter_recounts_the_topology() -> None:
    cluster = _cluster(cluster_spec(name="iso", topology="dc1:2,dc2:1", heap="512M"))
    joined = grow.next_node(cluster, "dc2")
    after = grow.resized(cluster.state, [*cluster.state.nodes, joined])
    assert after.spec.nodes == 4
    assert after.spec.topology is not None
    assert after.spec.topology.text == "dc1:2,dc2:2"
    ClusterState.model_validate(after.model_dump())  # a state.json that reads back
    left = grow.resized(after, after.nodes[:3])
    assert left.spec.topology is not None
    assert left.spec.topology.text == "dc1:2,dc2:1"
    with pytest.raises(ConfigError, match=r"datacenter dc2 would have no node left"):
        grow.resized(cluster.state, cluster.state.nodes[:2])


@pytest.mark.parametrize(
    ("datacenter", "said"),
    [
        (None, r"'iso': no datacenter; it has datacenters dc1, dc2: say which one .* dc1"),
        ("dc7", r"'iso': datacenter 'dc7'; it has datacenters dc1, dc2"),
    ],
)
def test_a_cluster_with_datacenters_needs_one_of_them_for_a_new_node(
    datacenter: str | None, said: str
) -> None:
    cluster = _cluster(cluster_spec(name="iso", topology="dc1:2,dc2:1", heap="512M"))
    with pytest.raises(ConfigError, match=said):
        IsolatedRing(cluster).check_add(datacenter)


def test_a_cluster_without_datacenters_refuses_one_for_a_new_node() -> None:
    cluster = _cluster(cluster_spec(name="iso", backend="isolated", nodes=2, heap="512M"))
    assert IsolatedRing(cluster).check_add() == 3
    with pytest.raises(ConfigError, match=r"datacenter 'dc1': cluster 'iso' has one .* leave"):
        IsolatedRing(cluster).check_add("dc1")


def test_the_isolated_backend_offers_ring_members_and_node_versions() -> None:
    capabilities = _cluster(
        cluster_spec(name="iso", backend="isolated", nodes=2, heap="512M")
    ).capabilities()
    assert isinstance(capabilities.ring, IsolatedRing)
    assert capabilities.versions is not None
    assert not capabilities.missing
