"""Which samplers a cluster's nodes get: each node's own cgroup and veth."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.cluster import Node
from casslab.metrics.cgroup import CGROUP_ROOT
from casslab.metrics.netns import SYS_CLASS_NET
from casslab.metrics.source import NodeTarget
from casslab.metrics.sources import build_sources, targets_from_nodes


def _node(n: int, address: str, directory: Path, **isolation: str) -> Node:
    return Node(
        number=n,
        address=address,
        native_port=9042,
        storage_port=7000,
        jmx_port=7199,
        directory=directory / f"node{n}",
        pid=4242 + n,
        **isolation,
    )


def test_targets_take_each_node_s_cgroup_and_host_interface(tmp_path: Path) -> None:
    isolated = _node(
        1,
        "10.213.0.2",
        tmp_path,
        cgroup="casslab/ab12cd/node1",
        netns="casslab-ab12cd-n1",
        host_interface="clab12cd1",
    )
    local = _node(2, "127.0.0.2", tmp_path)
    targets = targets_from_nodes([isolated, local])
    assert [(t.address, t.pid, t.cgroup, t.net_interface) for t in targets] == [
        ("10.213.0.2", 4243, "casslab/ab12cd/node1", "clab12cd1"),
        ("127.0.0.2", 4244, None, None),
    ]
    assert targets[0].data_dir == str(tmp_path / "node1" / "data")


def test_cgroup_and_network_samplers_each_where_given() -> None:
    """The root cgroup and ``lo`` stand in for a node's cgroup and veth: a node with only
    an interface still gets its network sampler."""
    if not (CGROUP_ROOT / "cpuacct" / "cpuacct.usage").exists():
        pytest.skip("no cgroup v1 cpuacct hierarchy here")
    if not (SYS_CLASS_NET / "lo" / "statistics").is_dir():
        pytest.skip("no /sys/class/net/lo here")
    targets = [
        NodeTarget(address="127.0.0.1", cgroup="/", net_interface="lo"),
        NodeTarget(address="127.0.0.2", net_interface="lo"),
        NodeTarget(address="127.0.0.3"),
    ]
    sources = build_sources(targets, use_jmx=False, cql=False)
    assert [(s.name, s.node) for s in sources] == [
        ("cgroup", "127.0.0.1"),
        ("netns", "127.0.0.1"),
        ("netns", "127.0.0.2"),
    ]
