"""Typed records of an isolated cluster: the limits every node's cgroup gets and the
network its namespaces share, as its state keeps them (read with :func:`isolated_of`).
Pure: no I/O, imported by :mod:`casslab.cluster.model`."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from casslab.cluster.backend_state import record_of, record_or_none
from casslab.cluster.cluster_spec import BackendKind
from casslab.host.cgroup_limits import NodeLimits
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster.model import ClusterState


class Isolation(StrEnum):
    """What a node shares with the host."""

    PROCESS = "process"  # a plain process on 127.0.0.n (in its own cgroup when limited)
    NETNS = "netns"  # its own network namespace with its own address on a bridge


class Bridge(Record):
    """A Linux bridge an isolated cluster's namespaces hang off, and its subnet: the
    cluster's one bridge, or with a topology one bridge per datacenter."""

    name: str  # e.g. clb3fa9c1 (one site) or clb3fa9c1d2 (datacenter 2)
    address: str  # the host's address on the bridge, e.g. 10.213.0.1
    prefix: int  # prefix length of the bridge's own block, e.g. 24 (or 26 for a site)
    datacenter: str | None = None  # the site it is the LAN of (a topology)
    subnet: str | None = None  # the cluster's whole subnet when it spans several bridges


class Isolated(Record):
    """What an isolated cluster's state keeps beyond a local one's
    (``ClusterState.backend_state``)."""

    backend: Literal[BackendKind.ISOLATED] = BackendKind.ISOLATED
    isolation: Isolation
    limits: NodeLimits
    cluster_id: str  # six hex digits, in every resource name (bridge, veths, namespaces)
    cgroup_root: str  # e.g. casslab/3fa9c1: the nodes' cgroups are below it
    bridge: Bridge | None = None  # netns isolation only (with a topology: the first site's)
    sites: tuple[Bridge, ...] = ()  # a topology's bridges, one per datacenter, in order


def isolated_or_none(state: ClusterState) -> Isolated | None:
    """``state``'s isolation record; None when it holds none (another backend's cluster)."""
    return record_or_none(state, Isolated)


def isolated_of(state: ClusterState) -> Isolated:
    """``state``'s isolation record: a :class:`TypeError` for another backend's cluster, a
    :class:`~casslab.errors.ClusterError` when an isolated cluster's state lacks it."""
    return record_of(state, Isolated, BackendKind.ISOLATED, "isolation")
