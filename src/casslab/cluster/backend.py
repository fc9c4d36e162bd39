"""The ``Cluster`` protocol: what every backend gives the runner, the metrics and the CLI.

A backend (``local``, ``isolated``, ``external``, ``ssh``) is one module or
folder of :mod:`casslab.cluster` with a class that satisfies :class:`Cluster` and
:class:`ClusterBackend`, and one line in :mod:`casslab.cluster.registry`. Nothing above the
cluster package names a backend class: it asks the registry for a cluster and talks to it
through this protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from casslab.cluster.capabilities import Capabilities
from casslab.cluster.model import ClusterSpec, ClusterState, Node, NodeStatus
from casslab.errors import ConfigError
from casslab.record import Record

DEFAULT_TIMEOUT_S = 240.0


class ResetMode(StrEnum):
    """How :meth:`Cluster.reset` empties a cluster without a restart."""

    DROP = "drop"  # drop every user keyspace
    TRUNCATE = "truncate"  # keep the schemas, truncate every user table


def reset_mode(mode: str) -> ResetMode:
    """``mode`` as a :class:`ResetMode`; a :class:`ConfigError` naming the valid ones."""
    try:
        return ResetMode(mode)
    except ValueError as error:
        raise ConfigError(f"reset mode {mode!r}: expected 'drop' or 'truncate'") from error


class UpOutcome(StrEnum):
    """What bringing a cluster up did."""

    CREATED = "created"  # a new, empty cluster
    STARTED = "started"  # a stopped cluster, started with its data


class NodeView(Record):
    """What ``status`` reports of one node."""

    number: int
    address: str
    native_port: int
    jmx_port: int
    pid: int | None
    status: NodeStatus
    rss_mib: float | None = None
    data_mib: float | None = None
    isolation: str = "process"  # or "netns": its own network namespace
    limits: str | None = None  # its cgroup's limits, e.g. "t2.small: 1 CPU, 2048 MiB"
    datacenter: str | None = None  # with a topology: its datacenter and rack
    rack: str | None = None
    host_id: str | None = None  # external nodes: as system.local / system.peers_v2 show them
    release_version: str | None = None


class Cluster(Protocol):
    """A running (or stopped) Cassandra cluster, whatever runs its nodes."""

    state: ClusterState

    @property
    def name(self) -> str: ...
    @property
    def nodes(self) -> list[Node]: ...
    @property
    def contact_points(self) -> list[str]: ...
    @property
    def datacenters(self) -> list[str]: ...
    @property
    def directory(self) -> Path: ...
    def node(self, number: int) -> Node: ...
    def start(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None: ...
    def restart(
        self, settings: Mapping[str, Any] | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None: ...
    def reset(
        self, mode: ResetMode = ResetMode.DROP, tables: Sequence[str] | None = None
    ) -> list[str]: ...
    def wipe(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None: ...
    def stop(self, deadline_s: float = 30.0) -> list[int]: ...
    def destroy(self) -> None: ...
    def status(self) -> list[NodeView]: ...
    def nodetool(self, number: int, *args: str, timeout_s: float = 120.0) -> str: ...
    def capture(self, name: str, keyspace: str) -> None: ...
    def restore(self, name: str, keyspace: str) -> None: ...
    def session(self, keyspace: str | None = None, node: int | None = None) -> Any: ...
    def close_sessions(self) -> None: ...
    def capabilities(self) -> Capabilities:
        """What this cluster can do beyond this protocol (:mod:`.capabilities`)."""
        ...

    def __enter__(self) -> Self: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class ClusterBackend(Protocol):
    """How the registry makes a backend's clusters (the class itself satisfies this)."""

    @classmethod
    def up(
        cls,
        spec: ClusterSpec,
        given: frozenset[str] = frozenset(),
        root: Path | None = None,
        *,
        fresh: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> tuple[Cluster, UpOutcome]: ...

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
    ) -> Cluster: ...

    @classmethod
    def from_state(cls, state: ClusterState) -> Cluster: ...
