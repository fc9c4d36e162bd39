"""Which samplers to run for a set of nodes: the one place that wires sources together."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from cassandra.cluster import Cluster, NoHostAvailable

from casslab.cqlaccess import CqlAccess
from casslab.errors import ConfigError, MetricsError, SetupError
from casslab.metrics.catalogue import ENGINE_NODE
from casslab.metrics.cgroup import CgroupSource
from casslab.metrics.cql import CqlSource
from casslab.metrics.host import HostSource
from casslab.metrics.jmx import JmxClient, JmxSource
from casslab.metrics.netns import NetnsSource
from casslab.metrics.proc_batch import ProcBatch
from casslab.metrics.process import ProcessSource
from casslab.metrics.remote import RemoteHostSource, RemoteNode, RemoteProcessSource
from casslab.metrics.source import NodeTarget, Source

log = logging.getLogger(__name__)


class NodeRecord(Protocol):
    """What the metrics need from a cluster's node record (``casslab.cluster.Node``)."""

    @property
    def address(self) -> str: ...
    @property
    def native_port(self) -> int: ...
    @property
    def jmx_port(self) -> int: ...
    @property
    def jmx_address(self) -> str: ...
    @property
    def pid(self) -> int | None: ...
    @property
    def data_dir(self) -> Path: ...
    @property
    def cgroup(self) -> str | None: ...
    @property
    def host_interface(self) -> str | None: ...
    @property
    def cql_only(self) -> bool: ...
    @property
    def access(self) -> CqlAccess | None: ...


def targets_from_nodes(nodes: Iterable[NodeRecord]) -> list[NodeTarget]:
    """Targets for the nodes casslab runs (process, host, JMX and CQL samplers, and the
    cgroup and network samplers of the nodes that run in a cgroup or a namespace). A node
    casslab does not run (``cql_only``: an external cluster) gets the CQL sampler only,
    with its access: its host, process and JMX are out of reach, and this host's disk is
    not its disk."""
    targets: list[NodeTarget] = []
    skipped: list[str] = []
    for n in nodes:
        if n.cql_only:
            skipped.append(n.address)
            targets.append(NodeTarget(address=n.address, cql_port=n.native_port, access=n.access))
            continue
        targets.append(
            NodeTarget(
                address=n.address,
                cql_port=n.native_port,
                pid=n.pid,
                data_dir=str(n.data_dir),
                jmx_port=n.jmx_port,
                jmx_address=n.jmx_address,
                cgroup=n.cgroup,
                net_interface=n.host_interface,
                access=n.access,
            )
        )
    if skipped:
        log.info(
            "%s: nodes of an external cluster, CQL-visible metrics only (no host, process, "
            "cgroup or JMX samplers)",
            ", ".join(skipped),
        )
    return targets


def parse_contact_point(text: str, default_port: int = 9042) -> tuple[str, int]:
    """``host[:port]`` -> (host, port)."""
    host, sep, port = text.strip().rpartition(":")
    if not sep:
        return text.strip(), default_port
    if not port.isdigit():
        raise ConfigError(f"contact point {text!r}: the port must be a number, e.g. 127.0.0.1:9042")
    return host, int(port)


def targets_from_contact_points(
    contact_points: Sequence[str], *, discover: bool = True, timeout_s: float = 5.0
) -> list[NodeTarget]:
    """CQL-only targets: the given nodes, plus every peer they know of when ``discover``."""
    if not contact_points:
        raise ConfigError(
            "metrics: no contact points given; pass e.g. --contact-points 127.0.0.1:9042"
        )
    points = [parse_contact_point(c) for c in contact_points]
    found: dict[str, int] = dict(points)
    if discover:
        port = points[0][1]
        cluster = Cluster(
            contact_points=[h for h, _ in points],
            port=port,
            connect_timeout=timeout_s,
            control_connection_timeout=timeout_s,
            schema_metadata_enabled=False,
            protocol_version=5,
        )
        try:
            cluster.connect()
            for host in cluster.metadata.all_hosts():
                addr = host.broadcast_rpc_address or host.address
                found.setdefault(str(addr), host.broadcast_rpc_port or port)
        except NoHostAvailable as e:
            raise MetricsError(
                f"metrics: cannot reach any of {', '.join(contact_points)} over CQL: {e}; "
                "check the addresses and that the nodes are up"
            ) from e
        finally:
            cluster.shutdown()
    return [NodeTarget(address=a, cql_port=p) for a, p in found.items()]


def _device_key(path: str) -> Any:
    try:
        return os.stat(path).st_dev
    except OSError:
        return path


def build_sources(
    targets: Sequence[NodeTarget],
    *,
    engine_pid: int | None = None,
    use_jmx: bool = True,
    jmx_client: JmxClient | None = None,
    cql: bool = True,
    remote: Mapping[str, RemoteNode] | None = None,
) -> list[Source]:
    """Every sampler the targets allow: host (per data device), process, cgroup, network
    namespace, CQL, JMX, and the engine process when ``engine_pid`` is given.

    A target whose label is in ``remote`` runs on another host: its host and process are
    sampled through that host's reader (:func:`remote_sources`), its JMX through the
    :class:`RemoteNode`'s client (a helper on that host), and its ``cgroup`` and
    ``net_interface`` (names on this host) are not used."""
    remote = remote or {}
    sources: list[Source] = remote_sources(targets, remote)
    by_device: dict[Any, tuple[list[str], str]] = {}
    for t in targets:
        if t.label in remote:
            continue
        if t.data_dir is not None:
            key = _device_key(t.data_dir)
            entry = by_device.setdefault(key, ([], t.data_dir))
            entry[0].append(t.label)
    for labels, data_dir in by_device.values():
        path = data_dir
        while not os.path.exists(path) and os.path.dirname(path) != path:
            path = os.path.dirname(path)
        sources.append(HostSource(labels, path))
    client = jmx_client
    if (
        use_jmx
        and client is None
        and any(t.jmx_port is not None and t.label not in remote for t in targets)
    ):
        try:
            client = JmxClient()
            client.prepare()
        except SetupError as e:
            log.warning("no JMX metrics (%s): using the CQL stand-ins", e)
            use_jmx, client = False, None
    for t in targets:
        if t.label not in remote:
            if t.pid is not None:
                sources.append(ProcessSource(t.label, t.pid))
            if t.cgroup is not None:
                sources.append(CgroupSource(t.label, t.cgroup))
            if t.net_interface is not None:
                sources.append(NetnsSource(t.label, t.net_interface))
        node_client = remote[t.label].jmx if t.label in remote else client
        jmx = use_jmx and node_client is not None and t.jmx_port is not None
        if cql:
            sources.append(
                CqlSource(t.label, t.address, t.cql_port, jmx_fallbacks=not jmx, access=t.access)
            )
        if jmx and t.jmx_port is not None and node_client is not None:
            sources.append(JmxSource(t.label, t.jmx_address, t.jmx_port, node_client))
    if engine_pid is not None:
        sources.append(ProcessSource(ENGINE_NODE, engine_pid, prefix="engine"))
    return sources


def remote_sources(targets: Sequence[NodeTarget], remote: Mapping[str, RemoteNode]) -> list[Source]:
    """The agentless host and process samplers of the targets whose label is in
    ``remote``, host by host (a host's samplers share one reading an instant,
    :mod:`casslab.metrics.proc_batch`): one host sampler per reader (its values recorded
    under every node label it holds; the first node's data directory names the disk), one
    process sampler per node with a PID (identified with its start ticks when the
    :class:`RemoteNode` has them)."""
    by_host: dict[int, list[tuple[NodeTarget, RemoteNode]]] = {}
    for t in targets:
        node = remote.get(t.label)
        if node is not None:
            by_host.setdefault(id(node.reader), []).append((t, node))
    sources: list[Source] = []
    for nodes in by_host.values():
        batch = ProcBatch(nodes[0][1].reader)
        stored = [t for t, _ in nodes if t.data_dir is not None]
        if stored and stored[0].data_dir is not None:
            labels = [t.label for t in stored]
            sources.append(RemoteHostSource(labels, stored[0].data_dir, batch.view()))
        for t, node in nodes:
            if t.pid is not None:
                view = batch.view()
                sources.append(
                    RemoteProcessSource(t.label, t.pid, view, start_ticks=node.start_ticks)
                )
    return sources
