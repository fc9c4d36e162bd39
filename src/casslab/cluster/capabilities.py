"""What a backend can do beyond the common part of the :class:`~casslab.cluster.backend.
Cluster` protocol, asked by name instead of guessed from its type.

Each backend's ``capabilities()`` gives the capabilities it has and, for each it lacks, its
own reason (a phrase that follows the cluster's name). Callers (faults, failure detection,
the metrics, the network and clock commands) ask through the functions here, the one place
that refuses an unsupported capability: ``cluster 'x' <the backend's reason>``.

* :class:`NodeProcesses`: node processes that can be signalled (kill, pause, stop).
* :class:`SkewableClock`: node clocks that can be skewed (a clock jump).
* :class:`CuttableLinks`: links between datacenters that can be cut (a partition).
* :class:`RingMembers`: nodes that can join the ring or leave it for good (add-node,
  decommission, replace).
* :class:`NodeVersions`: nodes whose Cassandra changes node by node (an upgrade).
* :class:`NodeHosts`: nodes on hosts of their own, reached over SSH: how their per-node
  samplers and JMX polls get there (a cluster without it is sampled on this machine).
"""

from __future__ import annotations

import signal
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from casslab.errors import ConfigError

if TYPE_CHECKING:
    from casslab.cluster.backend import Cluster
    from casslab.cluster.model import Node
    from casslab.remote.remote_records import RemoteProcess
    from casslab.remote.ssh import RemoteHost


class Capability(StrEnum):
    """A capability some backends have."""

    NODE_PROCESSES = "node processes that can be signalled"
    SKEWABLE_CLOCK = "node clocks that can be skewed"
    CUT_LINKS = "links between datacenters that can be cut"
    RING_MEMBERS = "nodes that can join or leave the ring (add-node, decommission, replace)"
    NODE_VERSIONS = "nodes whose Cassandra version can change (upgrade)"


NO_LINKS = (
    "has no datacenters linked by casslab; create one with --topology (a partition cuts a "
    "topology's links)"
)


class NodeProcesses(Protocol):
    """The nodes' processes, which casslab started and may signal."""

    def running(self, number: int) -> bool:
        """Whether node ``number``'s JVM runs (as recorded at its start)."""
        ...

    def signal(self, number: int, sig: signal.Signals, *, group: bool) -> None:
        """Send ``sig`` to node ``number``'s JVM (its process group with ``group``); a
        :class:`~casslab.errors.ClusterError` naming it when it does not run."""
        ...


class SkewableClock(Protocol):
    """The nodes' clocks, skewed through each node's clock file (:mod:`.clock_skew`)."""

    def offset_ms(self, number: int) -> float:
        """Node ``number``'s clock offset now; a :class:`ConfigError` when its Cassandra
        cannot take one."""
        ...

    def set_offset(self, number: int, offset_ms: float) -> None:
        """Step node ``number``'s clock to ``offset_ms`` from the host's."""
        ...


class CuttableLinks(Protocol):
    """The emulated links between a cluster's datacenters (:mod:`casslab.net.cuts` cuts
    and heals them through their keeper)."""

    def keeper_dir(self) -> Path:
        """Where the keeper of the running links keeps them; a :class:`ClusterError` saying
        why when they do not run."""
        ...


class RingMembers(Protocol):
    """The cluster's record of its nodes, which a node that left the ring leaves and a
    new one joins."""

    def check_add(self, datacenter: str | None = None) -> int:
        """The number the next node would have (in ``datacenter``, on a cluster with
        several); a :class:`ConfigError` when none can join (one more heap past this
        machine's memory, a datacenter missing or unknown)."""
        ...

    def add(self, timeout_s: float, datacenter: str | None = None) -> int:
        """Bootstrap a new node into the ring (into ``datacenter``); its number once every
        node sees it UP/NORMAL."""
        ...

    def check_replace(self, number: int, factors: Mapping[str, int]) -> int:
        """The number node ``number``'s replacement would have, given the user keyspaces'
        replication factors; a :class:`ConfigError` when it cannot be replaced (the last
        node, a keyspace at RF 1, one more heap past this machine's memory)."""
        ...

    def replace(self, number: int, timeout_s: float) -> int:
        """Replace node ``number``, stopped for good, by a new node that takes its tokens
        (Cassandra's replace address); its number once every node sees it UP/NORMAL and
        none lists the old one."""
        ...

    def check_forget(self, number: int) -> None:
        """A :class:`ConfigError` when node ``number`` could not leave the record once
        decommissioned (a node other than the last), said before it is decommissioned."""
        ...

    def forget(self, number: int) -> None:
        """Drop node ``number`` (decommissioned and stopped) from the cluster: it is no
        longer started, listed or sampled; a :class:`ConfigError` saying why when it
        cannot (it still runs; a node other than the last)."""
        ...


class NodeVersions(Protocol):
    """The Cassandra each node runs, changed node by node (a rolling upgrade)."""

    def check_version(self, version: str) -> str:
        """The exact version ``version`` resolves to (fetched if need be); a
        :class:`ConfigError` when the cluster's JDK cannot run it."""
        ...

    def set_version(self, number: int, version: str) -> None:
        """Node ``number``, stopped, starts next on ``version`` with the same data."""
        ...

    def finish(self, version: str) -> None:
        """Every node runs ``version``: it becomes the cluster's."""
        ...


@dataclass(frozen=True)
class HostJava:
    """Where casslab's JMX helper runs on a node's host: its Java and base directory."""

    java: str
    base_dir: str


class NodeHosts(Protocol):
    """Nodes on hosts of their own, reached over SSH."""

    def connect_host(self, number: int) -> RemoteHost:
        """A new SSH connection to node ``number``'s host, the caller's to close."""
        ...

    def remote_process(self, number: int) -> RemoteProcess | None:
        """Node ``number``'s JVM on its host (PID plus start ticks), or None."""
        ...

    def host_java(self, number: int) -> HostJava:
        """Where the JMX helper of node ``number`` runs on its host."""
        ...

    def host_address(self, number: int) -> str:
        """The address node ``number``'s host has in the inventory."""
        ...


@dataclass(frozen=True)
class Capabilities:
    """What one cluster can do; ``missing`` is the backend's reason for each it cannot.
    ``node_hosts`` None: the nodes run on this machine."""

    processes: NodeProcesses | None = None
    clock: SkewableClock | None = None
    links: CuttableLinks | None = None
    node_hosts: NodeHosts | None = None
    ring: RingMembers | None = None
    versions: NodeVersions | None = None
    missing: Mapping[Capability, str] = field(default_factory=dict)


def refusal(cluster: Cluster, capability: Capability) -> ConfigError:
    """The error for ``capability`` that ``cluster`` lacks, in its backend's words."""
    reason = cluster.capabilities().missing.get(capability)
    if reason is None:
        reason = f"cannot give {capability.value} (its backend has no such capability)"
    return ConfigError(f"cluster {cluster.name!r} {reason}")


def processes_of(cluster: Cluster) -> NodeProcesses:
    """``cluster``'s signallable node processes, or the refusal."""
    found = cluster.capabilities().processes
    if found is None:
        raise refusal(cluster, Capability.NODE_PROCESSES)
    return found


def clock_of(cluster: Cluster) -> SkewableClock:
    """``cluster``'s skewable clocks, or the refusal."""
    found = cluster.capabilities().clock
    if found is None:
        raise refusal(cluster, Capability.SKEWABLE_CLOCK)
    return found


def links_of(cluster: Cluster) -> CuttableLinks:
    """``cluster``'s cuttable links, or the refusal."""
    found = cluster.capabilities().links
    if found is None:
        raise refusal(cluster, Capability.CUT_LINKS)
    return found


def ring_of(cluster: Cluster) -> RingMembers:
    """``cluster``'s record of its ring members, or the refusal."""
    found = cluster.capabilities().ring
    if found is None:
        raise refusal(cluster, Capability.RING_MEMBERS)
    return found


def versions_of(cluster: Cluster) -> NodeVersions:
    """``cluster``'s node versions, or the refusal."""
    found = cluster.capabilities().versions
    if found is None:
        raise refusal(cluster, Capability.NODE_VERSIONS)
    return found


def node_hosts_of(cluster: Cluster) -> NodeHosts | None:
    """How ``cluster``'s nodes on other hosts are reached (None: they run here)."""
    return cluster.capabilities().node_hosts


def last_node_problem(number: int, numbers: Iterable[int], cluster: str) -> str | None:
    """Why node ``number`` may not leave ``cluster`` (its name as the message gives it) of
    nodes ``numbers``: only the last may, as casslab numbers a cluster's nodes 1 to N and a
    backend renders the nodes ``casslab up`` made from their count and order; None when it
    is the last (pure)."""
    last = max(numbers)
    if number == last:
        return None
    return (
        f"node {number} of {cluster} is not its last node ({last}): casslab numbers a "
        f"cluster's nodes 1 to N; decommission node {last} instead"
    )


def last_node_only(cluster: str, number: int, nodes: Sequence[Node]) -> None:
    """The :class:`ConfigError` of :func:`last_node_problem` for ``cluster``'s ``nodes``."""
    problem = last_node_problem(number, (n.number for n in nodes), repr(cluster))
    if problem is not None:
        raise ConfigError(problem)
