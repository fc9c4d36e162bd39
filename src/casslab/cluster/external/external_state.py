"""The records of an external cluster: what ``state.json`` keeps of a cluster casslab did
not start (how to reach it, never a password; :func:`external_of` reads it), and what
discovery finds of each node."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from casslab.cluster.backend_state import record_of, record_or_none
from casslab.cluster.cluster_spec import BackendKind
from casslab.cqlaccess import CqlAccess
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster.model import ClusterState

DEFAULT_NATIVE_PORT = 9042
DEFAULT_STORAGE_PORT = 7000


class External(Record):
    """How casslab reaches an external cluster (``ClusterState.backend_state``).

    ``contact_points`` are ``host:port`` as given to ``casslab attach``; ``access`` names
    the user and the variable of its password, the CA file and the local datacenter.
    """

    backend: Literal[BackendKind.EXTERNAL] = BackendKind.EXTERNAL
    contact_points: tuple[str, ...]
    access: CqlAccess = CqlAccess()
    cluster_name: str | None = None  # Cassandra's own cluster_name (system.local)


def external_or_none(state: ClusterState) -> External | None:
    """How casslab reaches the cluster of ``state``; None when it is not external."""
    return record_or_none(state, External)


def external_of(state: ClusterState) -> External:
    """How casslab reaches the external cluster of ``state``: a :class:`TypeError` for
    another backend's cluster, a :class:`~casslab.errors.ClusterError` when an external
    cluster's state lacks it."""
    return record_of(state, External, BackendKind.EXTERNAL, "external")


class DiscoveredNode(Record):
    """One node as ``system.local`` / ``system.peers_v2`` (or ``system.peers``) show it."""

    address: str  # where clients reach it (its native address)
    native_port: int = DEFAULT_NATIVE_PORT
    storage_port: int = DEFAULT_STORAGE_PORT
    datacenter: str | None = None
    rack: str | None = None
    host_id: str | None = None
    release_version: str | None = None

    @property
    def contact_point(self) -> str:
        return f"{self.address}:{self.native_port}"
