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
from pathlib import Path
from typing import Any

import psutil

from casslab.cluster.backend import NodeView
from casslab.cluster.capabilities import Capabilities, Capability
from casslab.cluster.heap import default_heap
from casslab.cluster.isolated import network, owners, sizes, wan
from casslab.cluster.isolated.checks import limits_of
from casslab.cluster.isolated.isolated_state import Bridge, Isolated, Isolation
from casslab.cluster.local import launch
from casslab.cluster.local.cluster import LocalCluster, check_memory
from casslab.cluster.local.node_capabilities import LocalClock, LocalProcesses
from casslab.cluster.model import ClusterSpec, Node, heap_mib
from casslab.errors import ClusterError, ConfigError
from casslab.host.cgroup_limits import NodeLimits
from casslab.host.cgroups import Cgroups, block_device, join
from casslab.net.links import all_pairs

ISOLATED_RING = (
    "runs isolated nodes, whose namespaces and cgroups casslab does not take apart while "
    "the cluster runs; decommission a node of a local cluster (casslab up without isolation)"
)

REQUIRED_TOOLS = {"ip": "iproute2", "nsenter": "util-linux"}


def cluster_id(directory: Path) -> str:
    """Six hex digits naming this cluster's namespaces, veths, bridge and cgroups."""
    return hashlib.sha1(str(directory.resolve()).encode()).hexdigest()[:6]


def warnings_for(spec: ClusterSpec) -> list[str]:
    """What ``up`` and ``plan`` say before starting: nodes that together ask for more CPU
    or memory than this host has."""
    limits = limits_of(spec)
    available = psutil.virtual_memory().available // sizes.MIB
    return sizes.oversubscription(limits, spec.nodes, os.cpu_count() or 1, available)


def preflight(spec: ClusterSpec) -> NodeLimits:
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
        if self.state.isolated is None:
            raise ClusterError(f"cluster {self.name!r}: its state has no isolation record")
        return self.state.isolated

    @classmethod
    def _prepare(cls, spec: ClusterSpec, directory: Path) -> tuple[str, list[Node], dict[str, Any]]:
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
        return heap, nodes, {"isolated": record}

    @property
    def datacenters(self) -> list[str]:
        topology = self.state.spec.topology
        return topology.datacenters if topology is not None else super().datacenters

    def capabilities(self) -> Capabilities:
        return Capabilities(
            processes=LocalProcesses(self),
            clock=LocalClock(self),
            links=wan.KeptLinks(self.isolated.cluster_id),
            missing={
                Capability.RING_MEMBERS: ISOLATED_RING,
                Capability.NODE_VERSIONS: ISOLATED_RING.replace("decommission", "upgrade"),
            },
        )

    def _cgroups(self) -> Cgroups:
        return Cgroups.detect(self.isolated.cgroup_root, self.isolated.limits)

    def _provision(self) -> None:
        """The network (netns isolation) and every node's cgroup, made anew at each start
        (a stop removed them)."""
        record = self.isolated
        owners.release(record.cluster_id, record.cgroup_root)  # a crash's half-made ones
        owners.claim(record.cluster_id, self.directory, record.cgroup_root, record.bridge)
        try:
            self._provision_network()
            cgroups = self._cgroups()
            io = record.limits.io_read_bps is not None or record.limits.io_write_bps is not None
            device = None
            if io:
                self.state.nodes[0].directory.mkdir(parents=True, exist_ok=True)
                device = block_device(self.state.nodes[0].directory)
            for node in self.state.nodes:
                cgroups.create(node.number, record.limits, device)
        except BaseException:
            owners.release(record.cluster_id, record.cgroup_root)
            raise

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
        topology = self.state.spec.topology
        if len(bridges) < 2 or topology is None:
            return
        peers = [(n.address, network.node_mac(record.cluster_id, n.number)) for n in self.nodes]
        for node in self.state.nodes:
            if node.netns is not None:
                network.add_neighbours(node.netns, [p for p in peers if p[0] != node.address])
        links = all_pairs(self.state.spec.links, topology.datacenters)
        wan.create(record.cluster_id, bridges, links)

    def _release(self) -> None:
        """Remove the network and cgroups of the stopped nodes; the subnet stays held by a
        blackhole route (and an owner file) until the cluster is destroyed."""
        record = self.state.isolated
        if record is not None:
            owners.release(record.cluster_id, record.cgroup_root)
            if record.bridge is not None and self.directory.is_dir():
                owners.claim(record.cluster_id, self.directory, record.cgroup_root, record.bridge)
                network.guard(record.bridge)
        owners.sweep()  # and what crashed runs of removed clusters left

    def destroy(self) -> None:
        super().destroy()
        record = self.state.isolated
        if record is not None:
            owners.release(record.cluster_id, record.cgroup_root, record.bridge)

    def _spawn(self, node: Node) -> tuple[int, float | None]:
        limits = self.isolated.limits
        flags = [f"-XX:ActiveProcessorCount={sizes.processor_count(limits, os.cpu_count() or 1)}"]
        netns = node.netns
        return launch.spawn(
            self.state,
            node,
            flags=flags,
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


def _netns_nodes(spec: ClusterSpec, directory: Path, ident: str) -> tuple[list[Bridge], list[Node]]:
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
