"""The nodes' network: one Linux bridge per cluster with the host's address on it, and
per node a network namespace joined to the bridge by a veth pair, as LXC's default
network and Docker's bridge give each container its own address.

With a topology each datacenter has its own bridge and its own block of the cluster's
subnet (the host takes the block's first address, so it reaches every site at LAN speed);
the nodes see the whole subnet on their link, and the sites' bridges are joined at layer 2
by the emulated WAN links (:mod:`casslab.net.keeper`), one pair of taps per site pair,
each tap ``isolated`` so a mesh of sites has no loop (``docs/design/wan-links.md``).

Names carry the cluster's id (six hex digits) so a crashed casslab's leftovers are found:
bridge ``clb<id>`` (sites: ``clb<id>d<k>``), host ends ``clv<id>n<n>``, WAN taps
``clw<id><i>t<j>``, namespaces ``casslab-<id>-n<n>`` (every node's end is ``eth0`` inside
its namespace). Commands are argument lists for ``ip``, never shell text.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import math
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from casslab.cluster.isolated.isolated_state import Bridge
from casslab.errors import ClusterError, ConfigError
from casslab.host.ip_command import ip

DEFAULT_POOL = ipaddress.IPv4Network("10.213.0.0/16")  # where free /24 subnets are taken
NETNS_DIR = Path("/run/netns")


def bridge_name(cluster_id: str) -> str:
    return f"clb{cluster_id}"


def host_interface(cluster_id: str, number: int) -> str:
    return f"clv{cluster_id}n{number}"


def namespace(cluster_id: str, number: int) -> str:
    return f"casslab-{cluster_id}-n{number}"


def site_bridge_name(cluster_id: str, site: int) -> str:
    return f"clb{cluster_id}d{site}"


def tap_name(cluster_id: str, site: int, other: int) -> str:
    """The WAN tap on site ``site``'s bridge for its link to site ``other`` (from 1)."""
    return f"clw{cluster_id}{site}t{other}"


def node_mac(cluster_id: str, number: int) -> str:
    """Node ``number``'s fixed MAC (locally administered): its permanent neighbour entries
    on the other nodes stay right across restarts."""
    return f"02:{cluster_id[0:2]}:{cluster_id[2:4]}:{cluster_id[4:6]}:00:{number:02x}"


def choose_subnet(
    used: Iterable[ipaddress.IPv4Network], pool: ipaddress.IPv4Network = DEFAULT_POOL
) -> ipaddress.IPv4Network:
    """The first /24 of ``pool`` that overlaps no subnet in ``used``."""
    taken = list(used)
    for candidate in pool.subnets(new_prefix=24):
        if not any(candidate.overlaps(t) for t in taken):
            return candidate
    raise ClusterError(f"no free /24 subnet left in {pool}; remove other clusters or give --subnet")


def plan(cluster_id: str, subnet: ipaddress.IPv4Network, nodes: int) -> tuple[Bridge, list[str]]:
    """The bridge (the host takes the subnet's first address) and each node's address."""
    hosts = list(subnet.hosts())
    if len(hosts) < nodes + 1:
        raise ClusterError(f"subnet {subnet} has room for {len(hosts) - 1} nodes, not {nodes}")
    bridge = Bridge(name=bridge_name(cluster_id), address=str(hosts[0]), prefix=subnet.prefixlen)
    return bridge, [str(hosts[n]) for n in range(1, nodes + 1)]


def node_address(bridge: Bridge, number: int) -> str:
    """Node ``number``'s address on ``bridge``'s subnet, as :func:`plan` lays the nodes
    out (the host first, node n at the subnet's n+1-th address): the address of a node
    that joins later (pure)."""
    hosts = list(ipaddress.IPv4Network(f"{bridge.address}/{bridge.prefix}", strict=False).hosts())
    if number >= len(hosts):
        raise ConfigError(
            f"node {number}: the subnet of bridge {bridge.name} has room for nodes 1 to "
            f"{len(hosts) - 1}; create the cluster anew with a larger --subnet"
        )
    return str(hosts[number])


def free_address(bridge: Bridge, taken: Collection[str]) -> str:
    """The first address of ``bridge``'s block that is neither the host's nor in
    ``taken``: a node joining that datacenter (pure)."""
    block = ipaddress.IPv4Network(f"{bridge.address}/{bridge.prefix}", strict=False)
    for host in block.hosts():
        if str(host) != bridge.address and str(host) not in taken:
            return str(host)
    raise ConfigError(
        f"datacenter {bridge.datacenter}: its block {block} has no free address for another "
        "node; create the cluster anew with a larger --subnet"
    )


def plan_sites(
    cluster_id: str, subnet: ipaddress.IPv4Network, sites: Sequence[tuple[str, int]]
) -> tuple[list[Bridge], list[str]]:
    """With a topology: one bridge per datacenter (``sites``: name and node count, in
    order) on its own block of ``subnet``, the host at each block's first address; the
    nodes' addresses in node order (site 1's first)."""
    if len(sites) > 8:
        raise ConfigError(f"{len(sites)} datacenters: casslab builds at most 8 on one host")
    split = math.ceil(math.log2(len(sites))) if len(sites) > 1 else 0
    blocks = list(subnet.subnets(prefixlen_diff=split)) if split else [subnet]
    bridges: list[Bridge] = []
    addresses: list[str] = []
    for index, ((name, count), block) in enumerate(zip(sites, blocks, strict=False), start=1):
        hosts = list(block.hosts())
        if len(hosts) < count + 1:
            raise ConfigError(
                f"datacenter {name}: its block {block} of subnet {subnet} has room for "
                f"{len(hosts) - 1} nodes, not {count}; give a larger --subnet"
            )
        bridges.append(
            Bridge(
                name=site_bridge_name(cluster_id, index),
                address=str(hosts[0]),
                prefix=block.prefixlen,
                datacenter=name,
                subnet=str(subnet),
            )
        )
        addresses.extend(str(hosts[n]) for n in range(1, count + 1))
    return bridges, addresses


def used_subnets() -> list[ipaddress.IPv4Network]:
    """Every IPv4 subnet on an interface of the host, and every subnet a stopped cluster
    holds with a blackhole route (:func:`guard`)."""
    found: list[ipaddress.IPv4Network] = []
    for link in json.loads(ip("-j", "-4", "addr") or "[]"):
        for info in link.get("addr_info", []):
            found.append(
                ipaddress.IPv4Network(f"{info['local']}/{info['prefixlen']}", strict=False)
            )
    for route in json.loads(ip("-j", "-4", "route", "show", "type", "blackhole") or "[]"):
        with contextlib.suppress(ValueError, KeyError):
            found.append(ipaddress.IPv4Network(route["dst"], strict=False))
    return found


def subnet_of(bridge: Bridge) -> str:
    """The cluster's subnet: the bridge's own, or the one its sites' blocks split."""
    if bridge.subnet is not None:
        return bridge.subnet
    return str(ipaddress.IPv4Network(f"{bridge.address}/{bridge.prefix}", strict=False))


def guard(bridge: Bridge) -> None:
    """A blackhole route for the subnet of a stopped cluster: its nodes' addresses are then
    dropped on this host instead of leaving it by the default route (a client still
    trying them, a driver reconnecting). Only the cluster's own subnet, chosen free."""
    ip("route", "replace", "blackhole", subnet_of(bridge))


def unguard(bridge: Bridge) -> None:
    """Remove :func:`guard`'s route (before the bridge comes back, or for good)."""
    ip("route", "del", "blackhole", subnet_of(bridge), check=False)


def create_bridge(bridge: Bridge) -> None:
    unguard(bridge)  # the bridge's own route takes the subnet over
    ip("link", "add", bridge.name, "type", "bridge")
    ip("addr", "add", f"{bridge.address}/{bridge.prefix}", "dev", bridge.name)
    if bridge.datacenter is not None:
        # the host has an address on every site's bridge: answer ARP only on the bridge
        # that holds the address asked for, not for another site's across the WAN
        _sysctl(f"net/ipv4/conf/{bridge.name}/arp_ignore", "1")
    ip("link", "set", bridge.name, "up")


def create_tap(name: str, bridge: Bridge) -> None:
    """A persistent WAN tap on ``bridge``, isolated (it forwards only to the site's own
    ports, never to another WAN tap: a mesh of sites has no loop); the link's pipeline
    attaches to it (``vde_plug tap://NAME``) and may come and go."""
    ip("tuntap", "add", "mode", "tap", "name", name)
    _sysctl(f"net/ipv6/conf/{name}/disable_ipv6", "1")
    ip("link", "set", name, "master", bridge.name)
    ip("link", "set", "dev", name, "type", "bridge_slave", "isolated", "on")
    ip("link", "set", name, "up")


def add_neighbours(ns: str, peers: Sequence[tuple[str, str]]) -> None:
    """Permanent ARP entries in namespace ``ns`` for ``peers`` (address, MAC): the first
    packet to a node of another site does not wait two WAN round trips for ARP."""
    for address, mac in peers:
        ip(
            "neigh",
            "replace",
            address,
            "lladdr",
            mac,
            "dev",
            "eth0",
            "nud",
            "permanent",
            namespace_name=ns,
        )


def _sysctl(key: str, value: str) -> None:
    Path("/proc/sys", key).write_text(value + "\n")


def create_node(bridge: Bridge, cluster_id: str, number: int, address: str) -> tuple[str, str]:
    """Node ``number``'s namespace (loopback up, ``eth0`` at ``address`` with its fixed
    MAC, default route through the host) joined to ``bridge``; returns (namespace, host
    interface)."""
    ns, host_end = namespace(cluster_id, number), host_interface(cluster_id, number)
    prefix = ipaddress.IPv4Network(subnet_of(bridge)).prefixlen
    ip("netns", "add", ns)
    ip(
        "link",
        "add",
        host_end,
        "type",
        "veth",
        "peer",
        "name",
        "eth0",
        "address",
        node_mac(cluster_id, number),
        "netns",
        ns,
    )
    ip("link", "set", host_end, "master", bridge.name, "up")
    ip("addr", "add", f"{address}/{prefix}", "dev", "eth0", namespace_name=ns)
    ip("link", "set", "lo", "up", namespace_name=ns)
    ip("link", "set", "eth0", "up", namespace_name=ns)
    ip("route", "add", "default", "via", bridge.address, namespace_name=ns)
    return ns, host_end


def namespaces_of(cluster_id: str) -> list[str]:
    """The namespaces of cluster ``cluster_id`` that exist now."""
    if not NETNS_DIR.is_dir():
        return []
    prefix = f"casslab-{cluster_id}-n"
    return sorted(p.name for p in NETNS_DIR.iterdir() if p.name.startswith(prefix))


def links_of(cluster_id: str) -> list[str]:
    """The bridges, host-end veths and WAN taps of cluster ``cluster_id`` that exist now."""
    names = [link.get("ifname", "") for link in json.loads(ip("-j", "link") or "[]")]
    own = (bridge_name(cluster_id), f"clv{cluster_id}n", f"clw{cluster_id}")
    return [n for n in names if n.startswith(own)]


def remove(cluster_id: str) -> None:
    """Delete every namespace, veth, tap and bridge of cluster ``cluster_id`` (deleting a
    namespace deletes its veth pair; the host ends are deleted too in case one is left;
    bridges last)."""
    for ns in namespaces_of(cluster_id):
        ip("netns", "del", ns, check=False)
    for link in sorted(links_of(cluster_id), key=lambda n: n.startswith("clb")):
        ip("link", "del", link, check=False)


def remove_node(cluster_id: str, number: int) -> None:
    """Delete node ``number``'s namespace (its veth pair goes with it) and its host end in
    case one is left: a node that left the cluster."""
    ip("netns", "del", namespace(cluster_id, number), check=False)
    if host_interface(cluster_id, number) in links_of(cluster_id):
        ip("link", "del", host_interface(cluster_id, number), check=False)


def enter_command(ns: str, command: Sequence[str]) -> list[str]:
    """``command`` run inside namespace ``ns``: ``nsenter --net`` joins only the network
    namespace (``ip netns exec`` would also remount /sys, hiding the cgroup files the JVM
    reads its limits from), then execs the command, so its PID is the command's."""
    return ["nsenter", f"--net={NETNS_DIR / ns}", "--", *command]
