"""The samplers of a cluster's nodes, whatever runs them: local nodes as
:func:`~casslab.metrics.sources.targets_from_nodes` describes them, and nodes on hosts
reached over SSH (the ssh backend) through their hosts' /proc without an agent
(:mod:`casslab.metrics.remote`), each host over an SSH connection of the samplers' own,
closed with them.

An ssh node's PID is that of its host (the cluster keeps it with its start ticks), so it
is given to the remote process sampler only, never to a local one; its JMX port listens on
its host's loopback, so its JMX metrics come from a helper run on that host with the
node's own Java (:mod:`casslab.metrics.jmx_remote`); when the helper cannot be put there,
the CQL stand-ins, with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from casslab.cluster.backend import Cluster
from casslab.cluster.capabilities import HostJava, node_hosts_of
from casslab.metrics.proc_session import ChannelSession
from casslab.metrics.remote import RemoteNode
from casslab.metrics.source import NodeTarget, Sample, Source

if TYPE_CHECKING:
    from casslab.metrics.jmx import JmxClient
    from casslab.remote.ssh import RemoteHost

log = logging.getLogger(__name__)
LOOPBACK = "127.0.0.1"  # where a node's JMX listens, as its host sees it


class _Closing:
    """A source that also closes the SSH connections its host's samplers read through."""

    def __init__(self, inner: Source, owned: Sequence[Any]) -> None:
        self._inner = inner
        self._owned = list(owned)

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def node(self) -> str:
        return self._inner.node

    def sample(self, now: float) -> list[Sample]:
        return self._inner.sample(now)

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            for thing in reversed(self._owned):  # readers, then their connections
                thing.close()
            self._owned = []


def cluster_sources(cluster: Cluster, engine_pid: int | None = None) -> list[Source]:
    """Every sampler of ``cluster``'s nodes (and of the engine with ``engine_pid``)."""
    from casslab.metrics.sources import build_sources

    targets, remote, owned = cluster_targets(cluster)
    sources = build_sources(targets, engine_pid=engine_pid, remote=remote)
    if owned and sources:
        sources[0] = _Closing(sources[0], owned)
    return sources


def cluster_targets(
    cluster: Cluster,
) -> tuple[list[NodeTarget], dict[str, RemoteNode], list[Any]]:
    """The nodes as sampler targets, the readers of the remote ones' hosts (by node
    label), and the SSH connections opened for them (the caller closes them). Nodes on
    hosts of their own are reached through the cluster's
    :class:`~casslab.cluster.capabilities.NodeHosts`; the others are sampled here."""
    from casslab.metrics.sources import targets_from_nodes

    targets = targets_from_nodes(cluster.nodes)
    hosts = node_hosts_of(cluster)
    if hosts is None:
        return targets, {}, []
    from casslab.metrics.proc_session import SessionProcReader
    from casslab.metrics.proc_ssh import SshProcReader

    out: list[NodeTarget] = []
    remote: dict[str, RemoteNode] = {}
    owned: list[Any] = []  # connections and readers, closed in reverse order
    for target, node in zip(targets, cluster.nodes, strict=True):
        host = hosts.connect_host(node.number)
        owned.append(host)
        process = hosts.remote_process(node.number)
        out.append(
            target.model_copy(
                update={"pid": process.pid if process else None, "jmx_address": LOOPBACK}
            )
        )
        where = f"node {node.number} ({node.address})"
        reader = SessionProcReader(partial(_session, host), SshProcReader(host, where))
        owned.append(reader)
        jmx = _jmx_client(host, hosts.host_java(node.number), where)
        if jmx is not None:
            owned.append(jmx)
        remote[target.label] = RemoteNode(
            reader=reader, start_ticks=process.start_ticks if process else None, jmx=jmx
        )
    return out, remote, owned


def _jmx_client(host: RemoteHost, java: HostJava, where: str) -> JmxClient | None:
    """A JMX client whose helper runs on the node's host (None, with a warning, when it
    cannot be put there: the node's metrics then come over CQL)."""
    from casslab.errors import CasslabError
    from casslab.metrics.jmx_remote import RemoteJmxClient

    try:
        client = RemoteJmxClient(host, java.java, java.base_dir)
        client.prepare()
    except CasslabError as error:
        log.warning("no JMX metrics for %s (%s): using the CQL stand-ins", where, error)
        return None
    return client.acquire()


def _session(host: RemoteHost, argv: Sequence[str]) -> ChannelSession:
    """One long-lived shell on the host that answers each reading (one round trip, no
    new command per second: ``bench/remote_metrics.py`` measured 3.9 ms a reading against
    92 ms for a command each time)."""
    return ChannelSession(host.open_channel(argv))
