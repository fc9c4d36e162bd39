"""Serving a cluster's metrics: the labels of its nodes, and the samplers of a run that
also hand every value they read to the served store.

``casslab metrics serve`` runs a recorder of its own (its ``on_tick`` fills the store).
``casslab run --serve-metrics`` must not: the runner already samples the cluster during
each measured phase, and a second JMX helper and set of CQL connections would load the
nodes being measured. So the run's samplers are the runner's own, each wrapped in a
:class:`TeeSource` (:class:`ServedSources` is the runner's ``metrics_sources``, and
:func:`served_engine_source` its ``engine_source``, the sampler of each measured phase's
engine process: ``engine.cpu_pct``, ``engine.rss_bytes``, ...); a value is served when the
runner's recorder reads it.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from casslab.cluster.backend import Cluster
from casslab.cluster.capabilities import node_hosts_of
from casslab.metrics.prom_store import ClusterLabels, LatestValues, NodeLabels
from casslab.metrics.source import Gap, Sample, Source, SourceUnavailableError, Warmable

DEFAULT_DC = "datacenter1"  # a node without a topology: SimpleSnitch's datacenter


def cluster_labels(cluster: Cluster) -> ClusterLabels:
    """The labels of ``cluster``'s nodes (a :class:`~casslab.cluster.Cluster`): its name;
    per node its datacenter and its machine (this one's host name for the nodes casslab
    runs here, the inventory's address for a node on an SSH host, none for a node of an
    external cluster)."""
    hosts = node_hosts_of(cluster)
    remote = {n.number: hosts.host_address(n.number) for n in cluster.nodes} if hosts else {}
    here = socket.gethostname()
    nodes = {
        node.address: NodeLabels(
            dc=node.datacenter or DEFAULT_DC,
            host=remote.get(node.number, "" if node.cql_only else here),
        )
        for node in cluster.nodes
    }
    return ClusterLabels(cluster=cluster.name, nodes=nodes)


class TeeSource:
    """A source that also keeps what it reads (and its failures, as gaps) in ``store``."""

    def __init__(self, inner: Source, store: LatestValues) -> None:
        self._inner = inner
        self._store = store

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def node(self) -> str:
        return self._inner.node

    def sample(self, now: float) -> list[Sample]:
        try:
            samples = self._inner.sample(now)
        except SourceUnavailableError as error:
            gap = Gap(time=now, node=self.node, source=self.name, error=str(error))
            self._store.update(now, [], [gap])
            raise
        self._store.update(now, samples, [])
        return samples

    def warm(self) -> None:
        """The inner source's start-up work, if it has any (the JMX helper's)."""
        if isinstance(self._inner, Warmable):
            self._inner.warm()

    def close(self) -> None:
        self._inner.close()


SourceFactory = Callable[[Any, "int | None"], list[Source]]


class ServedSources:
    """A runner's ``metrics_sources``: ``base``'s samplers of a cluster, each a
    :class:`TeeSource` into ``store``, whose labels become the cluster's."""

    def __init__(self, store: LatestValues, base: SourceFactory | None = None) -> None:
        self._store = store
        self._base = base

    def __call__(self, cluster: Any, engine_pid: int | None) -> list[Source]:
        base = self._base
        if base is None:
            from casslab.metrics.cluster_sources import cluster_sources

            base = cluster_sources
        self._store.set_labels(cluster_labels(cluster))
        return [TeeSource(source, self._store) for source in base(cluster, engine_pid)]


def served_engine_source(
    store: LatestValues, base: Callable[[int], Source] | None = None
) -> Callable[[int], Source]:
    """A runner's ``engine_source``: ``base``'s sampler of the engine process with a PID
    (default: its psutil sampler, rows under node ``engine``), a :class:`TeeSource` into
    ``store``."""

    def source(pid: int) -> Source:
        inner = base
        if inner is None:
            from casslab.metrics import engine_source

            inner = engine_source
        return TeeSource(inner(pid), store)

    return source
