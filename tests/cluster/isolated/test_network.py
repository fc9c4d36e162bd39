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
