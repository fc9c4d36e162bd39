"""What ``state.json`` keeps of an ssh cluster (``ClusterState.backend_state``, read with
:func:`ssh_hosts_of`): the inventory it was made from (paths only, never a key's content)
and, per node, its host, the Java and Cassandra install found or deployed there, the tokens
of a node that joined later, and its process (PID plus start ticks)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import model_validator

from casslab.cluster.backend_state import record_of, record_or_none
from casslab.cluster.cluster_spec import BackendKind
from casslab.record import Record
from casslab.remote.inventory import HostSpec, Inventory

if TYPE_CHECKING:
    from casslab.cluster.model import ClusterState


class SshNode(Record):
    """Node ``number`` on ``host``. ``pid``/``start_ticks`` name its JVM on that host
    (``/proc/<pid>/stat`` field 22), never a process of this machine."""

    number: int
    host: HostSpec
    java: str  # the java executable on the host
    java_feature: int
    dist_dir: str  # <base_dir>/dist/<version> on the host (its jars in lib/)
    # the node's tokens once recorded: a node that joined a running ring (the tokens it
    # took), a replacement (the dead node's), and since a replacement every node (none is
    # derived from the node count again, which would give a survivor a replacement's token)
    tokens: tuple[int, ...] = ()
    # it joined a running ring (add-node, replace): it bootstraps and is never a seed; a
    # state written before this field: every node with tokens joined
    joined: bool = False
    replaces: str | None = None  # a replacement: the dead node's address, at its first boot
    pid: int | None = None
    start_ticks: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _joined(cls, data: Any) -> Any:
        if isinstance(data, dict) and "joined" not in data:
            return {**data, "joined": bool(data.get("tokens"))}
        return data

    @property
    def classpath(self) -> str:
        return f"{self.dist_dir}/lib/*"


class SshHosts(Record):
    """How casslab reaches an ssh cluster's hosts, and its nodes there."""

    backend: Literal[BackendKind.SSH] = BackendKind.SSH
    inventory: Inventory
    nodes: tuple[SshNode, ...]


def ssh_hosts_or_none(state: ClusterState) -> SshHosts | None:
    """``state``'s hosts record; None when it holds none (another backend's cluster)."""
    return record_or_none(state, SshHosts)


def ssh_hosts_of(state: ClusterState) -> SshHosts:
    """``state``'s hosts record: a :class:`TypeError` for another backend's cluster, a
    :class:`~casslab.errors.ClusterError` when an ssh cluster's state lacks it."""
    return record_of(state, SshHosts, BackendKind.SSH, "hosts")
