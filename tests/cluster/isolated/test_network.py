"""The nodes' network: names, the subnet chosen, the address plan (pure), and a real
bridge with one namespace made and removed."""

from __future__ import annotations

import ipaddress
import os
import socket
import subprocess
import uuid

import pytest

from casslab.cluster.isolated import network
from casslab.errors import ClusterError


def test_names_fit_the_kernel_limit_of_15_characters() -> None:
    assert network.bridge_name("3fa9c1") == "clb3fa9c1"
    assert network.host_interface("3fa9c1", 9) == "clv3fa9c1n9"
    assert all(len(n) <= 15 for n in ("clb3fa9c1", network.host_interface("3fa9c1", 9)))
    assert network.namespace("3fa9c1", 2) == "casslab-3fa9c1-n2"


def test_the_first_free_subnet_is_chosen() -> None:
    used = [ipaddress.IPv4Network(n) for n in ("10.213.0.0/24", "10.213.1.0/24", "10.0.0.0/8")]
    pool = ipaddress.IPv4Network("10.213.0.0/16")
    # 10.0.0.0/8 overlaps the whole pool: nothing is free
    with pytest.raises(ClusterError, match="no free /24"):
        network.choose_subnet(used, pool)
    assert network.choose_subnet(used[:2], pool) == ipaddress.IPv4Network("10.213.2.0/24")


def test_the_host_takes_the_first_address_and_node_n_the_next() -> None:
    bridge, addresses = network.plan("3fa9c1", ipaddress.IPv4Network("10.213.4.0/24"), 3)
    assert (bridge.name, bridge.address, bridge.prefix) == ("clb3fa9c1", "10.213.4.1", 24)
    assert addresses == ["10.213.4.2", "10.213.4.3", "10.213.4.4"]
    with pytest.raises(ClusterError, match="room for 13 nodes"):
        network.plan("3fa9c1", ipaddress.IPv4Network("10.213.4.0/28"), 14)


def test_the_node_command_joins_only_the_network_namespace() -> None:
    assert network.enter_command("casslab-x-n1", ["java", "-version"]) == [
        "nsenter",
        "--net=/run/netns/casslab-x-n1",
        "--",
        "java",
        "-version",
    ]


@pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root")
def test_a_real_namespace_on_a_bridge_answers_the_host_and_is_removed() -> None:
    ident = uuid.uuid4().hex[:6]
    subnet = network.choose_subnet(network.used_subnets())
    bridge, addresses = network.plan(ident, subnet, 1)
    try:
        network.create_bridge(bridge)
        ns, host_end = network.create_node(bridge, ident, 1, addresses[0])
        assert network.namespaces_of(ident) == [ns]
        assert set(network.links_of(ident)) == {bridge.name, host_end}
        # a listener inside the namespace, reached from the host through the bridge
        server = subprocess.Popen(
            [*network.enter_command(ns, ["python3", "-c", _LISTEN, addresses[0]])],
            stdout=subprocess.PIPE,
        )
        assert server.stdout is not None
        assert server.stdout.readline().strip() == b"listening"
        with socket.create_connection((addresses[0], 7777), timeout=5) as conn:
            assert conn.recv(16) == b"casslab"
        server.wait(timeout=5)
    finally:
        network.remove(ident)
    assert network.namespaces_of(ident) == []
    assert network.links_of(ident) == []
    # a stopped cluster holds its subnet: its addresses are dropped here, not routed out,
    # and no other cluster takes the subnet
    try:
        network.guard(bridge)
        assert f"blackhole {subnet}" in network.ip("route", "show", "type", "blackhole")
        assert subnet in network.used_subnets()
    finally:
        network.unguard(bridge)
    assert str(subnet) not in network.ip("route", "show", "type", "blackhole")


_LISTEN = """
import socket, sys
s = socket.socket()
s.bind((sys.argv[1], 7777))
s.listen()
print("listening", flush=True)
c, _ = s.accept()
c.sendall(b"casslab")
c.close()
"""


def test_each_datacenter_gets_its_bridge_and_block_and_the_nodes_see_the_whole_subnet() -> None:
    subnet = ipaddress.IPv4Network("10.213.4.0/24")
    bridges, addresses = network.plan_sites("3fa9c1", subnet, [("dc1", 2), ("dc2", 1), ("dc3", 1)])
    assert [(b.name, b.address, b.prefix, b.datacenter) for b in bridges] == [
        ("clb3fa9c1d1", "10.213.4.1", 26, "dc1"),
        ("clb3fa9c1d2", "10.213.4.65", 26, "dc2"),
        ("clb3fa9c1d3", "10.213.4.129", 26, "dc3"),
    ]
    assert addresses == ["10.213.4.2", "10.213.4.3", "10.213.4.66", "10.213.4.130"]
    # the guard and the nodes' netmask take the cluster's subnet, not a site's block
    assert {network.subnet_of(b) for b in bridges} == {"10.213.4.0/24"}
    one, _ = network.plan_sites("3fa9c1", subnet, [("dc1", 4)])
    assert (one[0].prefix, network.subnet_of(one[0])) == (24, "10.213.4.0/24")


def test_a_site_too_small_for_its_nodes_or_too_many_sites_are_refused() -> None:
    from casslab.errors import ConfigError

    small = ipaddress.IPv4Network("10.213.4.0/28")
    with pytest.raises(ConfigError, match=r"datacenter dc2: its block 10\.213\.4\.8/29"):
        network.plan_sites("3fa9c1", small, [("dc1", 2), ("dc2", 7)])
    with pytest.raises(ConfigError, match="at most 8"):
        network.plan_sites("3fa9c1", small, [(f"dc{i}", 1) for i in range(9)])


def test_wan_taps_and_macs_are_named_for_the_cluster() -> None:
    assert network.tap_name("3fa9c1", 1, 3) == "clw3fa9c11t3"
    assert len(network.tap_name("3fa9c1", 8, 7)) <= 15
    assert network.node_mac("3fa9c1", 10) == "02:3f:a9:c1:00:0a"
