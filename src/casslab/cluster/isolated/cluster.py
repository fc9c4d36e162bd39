"""The isolated backend: Cassandra nodes as processes in their own cgroups (CPU quota,
memory limit, cpuset, block-I/O throttle), and with ``isolation: netns`` each in its own
network namespace with its own address on the cluster's bridge: containers without a
container engine.

Everything a local cluster does it does (one directory per cluster, data kept across
``down``/``up``); on top, each start makes the cgroups and the network and each stop
removes them, and a crashed casslab's leftovers are swept by the next ``up`` or ``down``
(:mod:`casslab.cluster.isolated.owners`).
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from casslab.cluster.backend import NodeView
from casslab.cluster.capabilities import Capabilities
from casslab.cluster.heap import default_heap
from casslab.cluster.isolated import network, owners, sizes, wan
from casslab.cluster.isolated.checks import limits_of
from casslab.cluster.isolated.isolated_spec import IsolatedSpec, as_isolated
from casslab.cluster.isolated.isolated_state import (
    Bridge,
    Isolated,
    Isolation,
    isolated_of,
    isolated_or_none,
)
from casslab.cluster.local import launch
from casslab.cluster.local.cluster import LocalCluster, check_memory
from casslab.cluster.local.node_capabilities import LocalClock, LocalProcesses, LocalRing
from casslab.cluster.local.versions import LocalVersions
from casslab.cluster.model import BackendState, ClusterSpec, Node, heap_mib
from casslab.errors import ClusterError, ConfigError
from casslab.host.cgroup_limits import NodeLimits
from casslab.host.cgroups import Cgroups, block_device, join
from casslab.net.links import all_pairs

REQUIRED_TOOLS = {"ip": "iproute2", "nsenter": "util-linux"}


def cluster_id(directory: Path) -> str:
    """Six hex digits naming this cluster's namespaces, veths, bridge and cgroups."""
    return hashlib.sha1(str(directory.resolve()).encode()).hexdigest()[:6]


def warnings_for(spec: IsolatedSpec) -> list[str]:
    """What ``up`` and ``plan`` say before starting: nodes that together ask for more CPU
    or memory than this host has."""
    limits = limits_of(spec)
    available = psutil.virtual_memory().available // sizes.MIB
    return sizes.oversubscription(limits, spec.nodes, os.cpu_count() or 1, available)


def preflight(spec: IsolatedSpec) -> NodeLimits:
    """Every check before anything starts: root, the tools, the limits against this
    host; a :class:`ConfigError` saying what is missing and how to get it."""
    if os.geteuid() != 0:
        raise ConfigError(
            "isolated nodes (--isolation netns, --node-size, --cpus, --memory) need root to "
            "create network namespaces and cgroups; run casslab as root (e.g. with sudo)"
        )
    links = spec.topology is not None and len(spec.topology.sites) > 1
    for tool, package in (REQUIRED_TOOLS | (wan.REQUIRED_TOOLS if links else {})).items():
        if shutil.which(tool) is None:
            what = "links between datacenters" if tool in wan.REQUIRED_TOOLS else "isolated nodes"
            raise ConfigError(
                f"{what} need `{tool}`; install it: apt-get install {package} (nothing was started)"
            )
    limits = limits_of(spec)
    host_cpus = sorted(os.sched_getaffinity(0))
    problems = sizes.host_problems(limits, host_cpus, psutil.virtual_memory().total // sizes.MIB)
    if problems:
        raise ConfigError("; ".join(problems) + " (nothing was started)")
    return limits


class IsolatedCluster(LocalCluster):
    """An isolated cluster (see the module docstring)."""

    @property
    def isolated(self) -> Isolated:
        return isolated_of(self.state)

    @classmethod
    def _prepare(
        cls, asked: ClusterSpec, directory: Path
    ) -> tuple[str, list[Node], BackendState | None]:
        spec = as_isolated(asked)
        limits = preflight(spec)
        owners.sweep()
        ident = cluster_id(directory)
        owners.release_recorded(ident)  # an earlier cluster of this directory, crashed or replaced
        owners.release(ident, f"casslab/{ident}")
        heap = spec.heap or (
            f"{sizes.env_heap_mib(limits.memory_mib)}M"
            if limits.memory_mib is not None
            else default_heap(psutil.virtual_memory().available, spec.nodes)
        )
        from_size = limits.size if spec.memory is None else None
        problem = sizes.heap_problem(heap_mib(heap), heap, limits.memory_mib, from_size)
        if problem is not None:
            raise ConfigError(f"{problem} (nothing was started)")
        bridge = None
        sites: list[Bridge] = []
        if spec.isolation is Isolation.NETNS:
            check_memory(heap, spec.nodes)
            sites, nodes = _netns_nodes(spec, directory, ident)
            bridge = sites[0]
            if spec.topology is None:
                sites = []
        else:  # plain processes on 127.0.0.n, each in its cgroup
            _, nodes, _ = super()._prepare(spec.model_copy(update={"heap": heap}), directory)
        nodes = [n.model_copy(update={"cgroup": f"casslab/{ident}/node{n.number}"}) for n in nodes]
        record = Isolated(
            isolation=spec.isolation,
            limits=limits,
            cluster_id=ident,
            cgroup_root=f"casslab/{ident}",
            bridge=bridge,
            sites=tuple(sites),
        )
        return heap, nodes, record

    @property
    def spec(self) -> IsolatedSpec:
        """The spec the cluster was made of, the isolated backend's variant."""
        return as_isolated(self.state.spec)

    @property
    def datacenters(self) -> list[str]:
        topology = self.spec.topology
        return topology.datacenters if topology is not None else super().datacenters

    def capabilities(self) -> Capabilities:
        return Capabilities(
            processes=LocalProcesses(self),
            clock=LocalClock(self),
            links=wan.KeptLinks(self.isolated.cluster_id),
            ring=IsolatedRing(self),
            versions=LocalVersions(self),
        )

    def _new_node(self, number: int, place: tuple[str, str] | None = None) -> Node:
        """Node ``number`` as ``up`` lays it out: its cgroup, and with netns isolation its
        namespace, host end and the next address on the bridge (of its datacenter)."""
        node = super()._new_node(number, place)
        return joining_node(node, self.isolated, [n.address for n in self.state.nodes])

    def datacenter_join_problem(self) -> str | None:
        if self.isolated.bridge is None:
            return "its nodes are processes on 127.0.0.n, with no datacenters to join"
        return None

    def _check_ports(self, nodes: Sequence[Node]) -> None:
        if self.isolated.bridge is None:  # processes on 127.0.0.n share the host's ports
            super()._check_ports(nodes)

    def _drop_node(self, number: int) -> None:
        """Remove the namespace, veth pair and cgroup of node ``number``, which left."""
        record = self.isolated
        network.remove_node(record.cluster_id, number)
        self._cgroups().remove_node(number)

    def _cgroups(self) -> Cgroups:
        return Cgroups.detect(self.isolated.cgroup_root, self.isolated.limits)

    def _provision(self) -> None:
        """The network (netns isolation) and every node's cgroup, made anew at each start
        (a stop removed them); while some nodes run (a node restarts, joins or replaces
        another), only what the stopped ones lack."""
        if any(self.node_alive(n) for n in self.state.nodes):
            self._provision_joining()
            return
        record = self.isolated
        owners.release(record.cluster_id, record.cgroup_root)  # a crash's half-made ones
        owners.claim(record.cluster_id, self.directory, record.cgroup_root, record.bridge)
        try:
            self._provision_network()
            cgroups = self._cgroups()
            device = self._io_device()
            for node in self.state.nodes:
                cgroups.create(node.number, record.limits, device)
        except BaseException:
            owners.release(record.cluster_id, record.cgroup_root)
            raise

    def _io_device(self) -> str | None:
        """The block device the nodes' I/O limits throttle (None without such limits)."""
        limits = self.isolated.limits
        if limits.io_read_bps is None and limits.io_write_bps is None:
            return None
        self.state.nodes[0].directory.mkdir(parents=True, exist_ok=True)
        return block_device(self.state.nodes[0].directory)

    def _provision_joining(self) -> None:
        """The namespace and cgroup (with its peers' limits) of each stopped node that
        lacks them: a node that joins; a restarted one still has both."""
        record = self.isolated
        cgroups = self._cgroups()
        device = self._io_device()
        present = set(network.namespaces_of(record.cluster_id))
        for node in self.state.nodes:
            if self.node_alive(node):
                continue
            if record.bridge is not None and node.netns not in present:
                bridge = site_of(record, node.datacenter)
                network.create_node(bridge, record.cluster_id, node.number, node.address)
                if len(record.sites) > 1:
                    self._add_neighbours(node)
            cgroups.create(node.number, record.limits, device)

    def _add_neighbours(self, joining: Node) -> None:
        """The permanent neighbour entries between ``joining`` (in a new namespace) and
        every other node, both ways: as ``_provision_network`` makes them at ``up``."""
        ident = self.isolated.cluster_id
        peers = [n for n in self.state.nodes if n.number != joining.number and n.netns]
        if joining.netns is not None:
            entries = [(n.address, network.node_mac(ident, n.number)) for n in peers]
            network.add_neighbours(joining.netns, entries)
        own = [(joining.address, network.node_mac(ident, joining.number))]
        for peer in peers:
            if peer.netns is not None:
                network.add_neighbours(peer.netns, own)

    def _provision_network(self) -> None:
        """The bridges (one, or one per datacenter), every node's namespace on its site's
        bridge, and with several datacenters the nodes' permanent neighbours and the WAN
        links between the sites."""
        record = self.isolated
        bridges = list(record.sites) or ([record.bridge] if record.bridge is not None else [])
        if not bridges:
            return
        site_of = {bridge.datacenter: bridge for bridge in bridges}
        for bridge in bridges:
            network.create_bridge(bridge)
        for node in self.state.nodes:
            bridge = site_of.get(node.datacenter, bridges[0])
            network.create_node(bridge, record.cluster_id, node.number, node.address)
        topology = self.spec.topology
        if len(bridges) < 2 or topology is None:
            return
        peers = [(n.address, network.node_mac(record.cluster_id, n.number)) for n in self.nodes]
        for node in self.state.nodes:
            if node.netns is not None:
                network.add_neighbours(node.netns, [p for p in peers if p[0] != node.address])
        links = all_pairs(self.spec.links, topology.datacenters)
        wan.create(record.cluster_id, bridges, links)

    def _release(self) -> None:
        """Remove the network and cgroups of the stopped nodes; the subnet stays held by a
        blackhole route (and an owner file) until the cluster is destroyed."""
        record = isolated_or_none(self.state)
        if record is not None:
            owners.release(record.cluster_id, record.cgroup_root)
            if record.bridge is not None and self.directory.is_dir():
                owners.claim(record.cluster_id, self.directory, record.cgroup_root, record.bridge)
                network.guard(record.bridge)
        owners.sweep()  # and what crashed runs of removed clusters left

    def destroy(self) -> None:
        super().destroy()
        record = isolated_or_none(self.state)
        if record is not None:
            owners.release(record.cluster_id, record.cgroup_root, record.bridge)

    def _spawn(self, node: Node, flags: Sequence[str] = ()) -> tuple[int, float | None]:
        limits = self.isolated.limits
        count = sizes.processor_count(limits, os.cpu_count() or 1)
        netns = node.netns
        return launch.spawn(
            self.state,
            node,
            flags=[f"-XX:ActiveProcessorCount={count}", *flags],
            wrap=(lambda command: network.enter_command(netns, command)) if netns else None,
            preexec=join(self._cgroups().procs_files(node.number)),
        )

    def status(self) -> list[NodeView]:
        record = self.isolated
        return [
            view.model_copy(
                update={
                    "isolation": record.isolation.value,
                    "limits": record.limits.short(),
                    "datacenter": node.datacenter,
                    "rack": node.rack,
                }
            )
            for view, node in zip(super().status(), self.state.nodes, strict=True)
        ]


def _netns_nodes(
    spec: IsolatedSpec, directory: Path, ident: str
) -> tuple[list[Bridge], list[Node]]:
    """The bridges and the nodes of a netns cluster: each node at its own address of a
    free subnet (or ``spec.subnet``), its JMX on that address; with a topology, one bridge
    per datacenter and each node in its datacenter and rack."""
    used = network.used_subnets()
    if spec.subnet is not None:
        subnet = ipaddress.IPv4Network(spec.subnet)
        clash = [str(u) for u in used if u.overlaps(subnet)]
        if clash:
            raise ConfigError(
                f"--subnet {spec.subnet} overlaps {', '.join(clash)} already on this host; "
                "choose another or leave it out (casslab picks a free one)"
            )
    else:
        subnet = network.choose_subnet(used)
    placements = spec.topology.placements() if spec.topology is not None else []
    if spec.topology is not None:
        sites = [(site.name, site.nodes) for site in spec.topology.sites]
        bridges, addresses = network.plan_sites(ident, subnet, sites)
    else:
        bridge, addresses = network.plan(ident, subnet, spec.nodes)
        bridges = [bridge]
    nodes = [
        Node(
            number=n,
            address=addresses[n - 1],
            native_port=spec.native_port,
            storage_port=spec.storage_port,
            jmx_port=spec.jmx_port_base + n,
            directory=directory / f"node{n}",
            netns=network.namespace(ident, n),
            host_interface=network.host_interface(ident, n),
            jmx_address=addresses[n - 1],
            datacenter=placements[n - 1].datacenter if placements else None,
            rack=placements[n - 1].rack if placements else None,
        )
        for n in range(1, spec.nodes + 1)
    ]
    return bridges, nodes


def site_of(record: Isolated, datacenter: str | None) -> Bridge:
    """The bridge a node of ``datacenter`` is on: its site's, or the cluster's one."""
    for bridge in record.sites:
        if bridge.datacenter == datacenter:
            return bridge
    if record.bridge is None:
        raise ClusterError("this isolated cluster has no bridge: its nodes are processes")
    return record.bridge


def joining_node(node: Node, record: Isolated, taken: Sequence[str] = ()) -> Node:
    """``node`` (laid out as a local cluster's next node) in ``record``'s isolation: its
    cgroup, and with netns isolation its namespace, host end and address on the bridge,
    the next one after its peers' (with datacenters: the first free one of its site's
    block, ``taken`` holding its peers' addresses) (pure)."""
    node = node.model_copy(update={"cgroup": f"{record.cgroup_root}/node{node.number}"})
    if record.bridge is None:
        return node
    if len(record.sites) > 1:
        address = network.free_address(site_of(record, node.datacenter), taken)
    else:
        address = network.node_address(record.bridge, node.number)
    return node.model_copy(
        update={
            "address": address,
            "jmx_address": address,
            "netns": network.namespace(record.cluster_id, node.number),
            "host_interface": network.host_interface(record.cluster_id, node.number),
        }
    )


@dataclass(frozen=True)
class IsolatedRing(LocalRing):
    """Nodes that join or leave an isolated cluster: as a local cluster's, each in its own
    namespace and cgroup (:meth:`IsolatedCluster._provision_joining`, ``_drop_node``); on
    a cluster with datacenters, on its site's bridge with neighbour entries both ways."""

    def check_add(self, datacenter: str | None = None) -> int:
        cluster = self.cluster
        state = cluster.state
        record = isolated_or_none(state)
        if record is not None:
            available_mib = psutil.virtual_memory().available // sizes.MIB
            problem = sizes.join_problem(record.limits, heap_mib(state.heap), available_mib)
            if problem is not None:
                raise ConfigError(f"add a node to cluster {cluster.name!r}: {problem}")
        return super().check_add(datacenter)
