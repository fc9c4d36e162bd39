"""When the other nodes mark a faulted node (or a partitioned datacenter's) down, and up
again: one of the others (:func:`observer`) is asked over JMX, every :data:`POLL_S`, how
many endpoints its failure detector holds down (``FailureDetector.DownEndpointCount``).
The first poll after the fault began with more than before it is when it was marked down;
the first after the node was back with the count as before, when it was marked up. Nodes
on SSH hosts are asked through the JMX helper run on their host
(:mod:`casslab.metrics.jmx_remote`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from casslab.cluster import Cluster
from casslab.cluster.capabilities import node_hosts_of
from casslab.errors import CasslabError
from casslab.metrics.jmx import JmxClient
from casslab.metrics.source import SourceUnavailableError

log = logging.getLogger(__name__)

POLL_S = 0.5
QUERY = (("org.apache.cassandra.net:type=FailureDetector", "DownEndpointCount"),)


def observer(cluster: Cluster, target: int | str) -> int | None:
    """The node that watches ``target``: the lowest-numbered other node; for a partitioned
    datacenter, the lowest outside it; for a cut link ``a-b``, the lowest in ``a`` (None:
    nobody can)."""
    if isinstance(target, int):
        others = [n.number for n in cluster.nodes if n.number != target]
    elif "-" in target:
        side = target.split("-", 1)[0]
        others = [n.number for n in cluster.nodes if n.datacenter == side]
    else:
        others = [n.number for n in cluster.nodes if n.datacenter != target]
    return min(others) if others else None


def jmx_client(cluster: Cluster, number: int) -> tuple[JmxClient, str, int, list[Any]]:
    """A JMX client for node ``number``, where to poll it, and what to close after: the
    helper on this machine, or on the node's host when the cluster's nodes have hosts of
    their own (:func:`~casslab.cluster.capabilities.node_hosts_of`)."""
    node = cluster.node(number)
    hosts = node_hosts_of(cluster)
    if hosts is None:
        return JmxClient(), node.jmx_address, node.jmx_port, []
    from casslab.metrics.jmx_remote import RemoteJmxClient

    host = hosts.connect_host(number)
    java = hosts.host_java(number)
    return RemoteJmxClient(host, java.java, java.base_dir), "127.0.0.1", node.jmx_port, [host]


class DownWatch:
    """Watches one fault's node from another; ``down_s``/``up_s`` are seconds on the
    caller's clock ``now`` (None: not seen)."""

    def __init__(self, cluster: Cluster, target: int | str, now: Callable[[], float]) -> None:
        self._now = now
        self._stop = threading.Event()
        self._back = threading.Event()
        self.down_s: float | None = None
        self.up_s: float | None = None
        self.error: str | None = None
        watcher = observer(cluster, target)
        self._thread: threading.Thread | None = None
        if watcher is None:
            return
        try:
            self._client, self._host, self._port, self._owned = jmx_client(cluster, watcher)
        except CasslabError as error:
            self.error = f"node {watcher} could not be asked over JMX: {error}"
            return
        self._client.acquire()
        try:
            self._baseline = self._count()
        except (CasslabError, SourceUnavailableError) as error:
            self.error = f"node {watcher} could not be asked over JMX: {error}"
            self._release()
            return
        self._thread = threading.Thread(target=self._run, name="casslab-down-watch", daemon=True)
        self._thread.start()

    def _count(self) -> float:
        values = self._client.poll(self._host, self._port, QUERY)
        return max((v.value for v in values), default=0.0)

    def back(self) -> None:
        """The faulted node is back: watch for it to be marked up."""
        self._back.set()

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                count = self._count()
            except SourceUnavailableError as error:
                log.debug("failure detector poll: %s", error)
                continue
            if self.down_s is None and count > self._baseline and not self._back.is_set():
                self.down_s = self._now()
            if self._back.is_set() and count <= self._baseline:
                self.up_s = self._now()
                return

    def stop(self, wait_up_s: float = 0.0) -> None:
        """Stop watching (after at most ``wait_up_s`` more for the node to be marked up)."""
        if self._thread is not None:
            self._thread.join(wait_up_s)
            self._stop.set()
            self._thread.join(10.0)
            self._thread = None
            self._release()

    def _release(self) -> None:
        self._client.close()
        for thing in self._owned:
            thing.close()
