"""The external backend: a Cassandra cluster casslab did not start (a Kubernetes cluster
run by K8ssandra or cass-operator, a managed service that speaks CQL), attached with
``casslab attach`` (:mod:`casslab.cluster.external.attach`).

casslab reaches it over CQL only: load from the engine, CQL-visible metrics, reports, the
ring shown by ``status``. It owns nothing of it, so every operation on its nodes or their
data is refused with the reason (:mod:`casslab.cluster.external.refusals`); the one
exception is ``reset`` in truncate mode of tables named by the caller (the workload's
own). ``destroy`` (``casslab down``) forgets the cluster: it removes casslab's state
directory and never contacts a node.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from casslab.cluster import admin, state
from casslab.cluster.backend import DEFAULT_TIMEOUT_S, NodeView, ResetMode, UpOutcome, reset_mode
from casslab.cluster.capabilities import NO_LINKS, Capabilities, Capability
from casslab.cluster.external import discovery
from casslab.cluster.external.external_state import DiscoveredNode, External, external_of
from casslab.cluster.external.refusals import NOT_OURS, refusal
from casslab.cluster.model import ClusterSpec, ClusterState, Node, NodeStatus
from casslab.cluster.wait import port_open
from casslab.cqlaccess import CqlAccess
from casslab.errors import ClusterError

PROBE_TIMEOUT_S = 1.0


def node_records(found: Sequence[DiscoveredNode], directory: Path, access: CqlAccess) -> list[Node]:
    """Cluster node records of the discovered nodes, numbered 1..n in ring order: CQL
    only (no process, files or JMX here: ``jmx_port`` 0)."""
    return [
        Node(
            number=number,
            address=node.address,
            native_port=node.native_port,
            storage_port=node.storage_port,
            jmx_port=0,
            directory=directory / f"node{number}",  # never made: nothing of it is here
            datacenter=node.datacenter,
            rack=node.rack,
            cql_only=True,
            access=access,
            host_id=node.host_id,
            release_version=node.release_version,
        )
        for number, node in enumerate(found, start=1)
    ]


def read_ring(
    sessions: admin.Sessions, points: list[tuple[str, int]], access: CqlAccess
) -> tuple[list[DiscoveredNode], str]:
    """The ring and cluster name as the node of casslab's control connection sees them
    (``system.local`` and its peers: one node's view, so nothing is counted twice)."""
    session = sessions.connect(
        points, points[0][1], access=access.model_copy(update={"local_dc": None})
    )
    host = session.cluster.get_control_connection_host()
    contacted = (host.endpoint.address, host.endpoint.port) if host is not None else points[0]

    def execute(query: str) -> Sequence[Any]:
        return list(session.execute(query, host=host, timeout=admin.REQUEST_TIMEOUT_S))

    return discovery.query_ring(execute, contacted)


class ExternalCluster:
    """An attached cluster (see the module docstring); made by
    :func:`casslab.cluster.external.attach.attach_external`, opened by the registry."""

    def __init__(self, cluster_state: ClusterState) -> None:
        self.state = cluster_state
        self._sessions = admin.Sessions()

    # ------------------------------------------------------------------ construction

    @classmethod
    def up(
        cls,
        spec: ClusterSpec,
        given: frozenset[str] = frozenset(),
        root: Path | None = None,
        *,
        fresh: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> tuple[ExternalCluster, UpOutcome]:
        raise refusal("up", spec.name)

    @classmethod
    def create(
        cls,
        spec: ClusterSpec,
        root: Path | None = None,
        *,
        fresh: bool = False,
        start: bool = True,
        remove_on_exit: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> ExternalCluster:
        raise refusal("create", spec.name)

    @classmethod
    def from_state(cls, cluster_state: ClusterState) -> ExternalCluster:
        return cls(cluster_state)

    # ------------------------------------------------------------------ properties

    @property
    def external(self) -> External:
        return external_of(self.state)

    @property
    def access(self) -> CqlAccess:
        return self.external.access

    @property
    def name(self) -> str:
        return self.state.spec.name

    @property
    def nodes(self) -> list[Node]:
        return list(self.state.nodes)

    @property
    def contact_points(self) -> list[str]:
        return list(self.external.contact_points)

    @property
    def datacenters(self) -> list[str]:
        return sorted({n.datacenter for n in self.state.nodes if n.datacenter is not None})

    @property
    def directory(self) -> Path:
        return self.state.directory

    def node(self, number: int) -> Node:
        for node in self.state.nodes:
            if node.number == number:
                return node
        raise ClusterError(
            f"cluster {self.name!r} has no node {number}; its nodes are 1..{len(self.state.nodes)}"
            " (`casslab status` lists them)"
        )

    def _points(self) -> list[tuple[str, int]]:
        return discovery.parse_contact_points(self.external.contact_points)

    # ------------------------------------------------------------------ refused

    def start(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        raise refusal("start", self.name)

    def restart(
        self, settings: Mapping[str, Any] | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        raise refusal("restart", self.name)

    def wipe(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        raise refusal("wipe", self.name)

    def stop(self, deadline_s: float = 30.0) -> list[int]:
        raise refusal("stop", self.name)

    def nodetool(self, number: int, *args: str, timeout_s: float = 120.0) -> str:
        raise refusal("nodetool", self.name)

    def capture(self, name: str, keyspace: str) -> None:
        raise refusal("capture", self.name)

    def restore(self, name: str, keyspace: str) -> None:
        raise refusal("restore", self.name)

    # ------------------------------------------------------------------ allowed

    def reset(
        self, mode: ResetMode = ResetMode.DROP, tables: Sequence[str] | None = None
    ) -> list[str]:
        """Truncate the named tables (``keyspace.table``) and keyspaces, nothing else; any
        other reset is refused. Snapshots the nodes take on truncation (Cassandra's
        ``auto_snapshot``) stay: they are on the nodes' hosts."""
        if reset_mode(mode) is ResetMode.DROP:
            raise refusal("drop", self.name)
        if not tables:
            raise refusal("truncate-all", self.name)
        try:
            return admin.truncate(self.session(), tables)
        finally:
            self.close_sessions()

    def destroy(self) -> None:
        """Forget the cluster: remove casslab's state directory for it (never a node)."""
        self.close_sessions()
        shutil.rmtree(self.directory, ignore_errors=True)
        state.forget_current(self.name, self.directory.parent)

    def status(self) -> list[NodeView]:
        """Every node of the ring as it is now (discovered again; the stored ring when no
        node answers), up when its CQL port accepts a connection. A changed ring is
        saved, so metrics and load see the nodes there are."""
        nodes = self.nodes
        try:
            found, _ = read_ring(self._sessions, self._points(), self.access)
        except ClusterError:
            found = None
        finally:
            self.close_sessions()
        if found:
            fresh = node_records(found, self.directory, self.access)
            if fresh != nodes:
                self.state = self.state.model_copy(update={"nodes": fresh})
                state.save(self.state)
            nodes = fresh
        return [
            NodeView(
                number=node.number,
                address=node.address,
                native_port=node.native_port,
                jmx_port=node.jmx_port,
                pid=None,
                status=NodeStatus.UP
                if port_open(node.address, node.native_port, PROBE_TIMEOUT_S)
                else NodeStatus.DOWN,
                isolation="external",
                datacenter=node.datacenter,
                rack=node.rack,
                host_id=node.host_id,
                release_version=node.release_version,
            )
            for node in nodes
        ]

    def session(self, keyspace: str | None = None, node: int | None = None) -> Any:
        """A cassandra-driver Session with the cluster's user and TLS; ``node`` pins every
        request to that node, otherwise the driver balances (local datacenter first)."""
        if node is not None:
            target = self.node(node)
            point = (target.address, target.native_port)
            return self._sessions.connect(
                [point], point[1], keyspace=keyspace, pinned=True, access=self.access
            )
        points = self._points()
        return self._sessions.connect(points, points[0][1], keyspace=keyspace, access=self.access)

    def close_sessions(self) -> None:
        self._sessions.close()

    def capabilities(self) -> Capabilities:
        return Capabilities(
            missing={
                Capability.NODE_PROCESSES: NOT_OURS,
                Capability.SKEWABLE_CLOCK: NOT_OURS,
                Capability.CUT_LINKS: NO_LINKS,
            }
        )

    def __enter__(self) -> ExternalCluster:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close_sessions()  # never a stop: casslab does not own the nodes
