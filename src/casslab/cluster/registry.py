"""Which class runs a cluster of each backend kind: the one place a backend is registered.

Everything above :mod:`casslab.cluster` brings clusters up, creates and attaches them
through these functions and talks to them through the :class:`~casslab.cluster.backend.
Cluster` protocol, so a new backend is one folder plus one line in :data:`BACKENDS`.
"""

from __future__ import annotations

import shutil
from contextlib import suppress
from pathlib import Path

from casslab.cluster import state
from casslab.cluster.backend import DEFAULT_TIMEOUT_S, Cluster, ClusterBackend, UpOutcome
from casslab.cluster.external.cluster import ExternalCluster
from casslab.cluster.isolated import owners
from casslab.cluster.isolated.cluster import IsolatedCluster
from casslab.cluster.local.cluster import LocalCluster
from casslab.cluster.local.launch import stop_leftovers
from casslab.cluster.model import BackendKind, ClusterSpec
from casslab.cluster.ssh.cluster import SshCluster
from casslab.cqlaccess import CqlAccess
from casslab.errors import ClusterError

BACKENDS: dict[BackendKind, ClusterBackend] = {
    BackendKind.LOCAL: LocalCluster,
    BackendKind.ISOLATED: IsolatedCluster,
    BackendKind.EXTERNAL: ExternalCluster,
    BackendKind.SSH: SshCluster,
}


def _backend(kind: BackendKind) -> ClusterBackend:
    try:
        return BACKENDS[kind]
    except KeyError:
        known = ", ".join(sorted(BACKENDS))
        raise ClusterError(
            f"cluster backend {kind.value!r} is not available in this casslab (it has {known})"
        ) from None


def up(
    spec: ClusterSpec,
    given: frozenset[str] = frozenset(),
    root: Path | None = None,
    *,
    fresh: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> tuple[Cluster, UpOutcome]:
    """Start the stopped cluster ``spec.name`` with its data, or create it (``casslab
    up``); see the backend's ``up``. A stored cluster is started by the backend it was
    made with (which refuses a ``spec`` that asks for another kind of cluster); an
    external one refuses, even ``fresh``: casslab never replaces what it does not own."""
    kind = spec.backend
    if state.state_file(spec.name, root).is_file():
        with suppress(ClusterError):
            stored = state.load(spec.name, root).spec.backend
            kind = stored if not fresh or stored is BackendKind.EXTERNAL else kind
    return _backend(kind).up(spec, given, root, fresh=fresh, timeout_s=timeout_s)


def create(
    spec: ClusterSpec,
    root: Path | None = None,
    *,
    fresh: bool = False,
    start: bool = True,
    remove_on_exit: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Cluster:
    """A new cluster as ``spec`` asks; ``fresh`` replaces a stopped one of that name."""
    return _backend(spec.backend).create(
        spec, root, fresh=fresh, start=start, remove_on_exit=remove_on_exit, timeout_s=timeout_s
    )


def attach(name: str | None = None, root: Path | None = None) -> Cluster:
    """The existing cluster ``name`` (default: the current one), from its state on disk."""
    loaded = state.load(state.chosen_name(name, root), root)
    return _backend(loaded.spec.backend).from_state(loaded)


def current_name(root: Path | None = None) -> str | None:
    """The current cluster's name, or None."""
    return state.current(root)


def current_version(name: str | None = None) -> str:
    """The Cassandra version the current (or named) cluster runs, as its state records it."""
    return state.load(state.chosen_name(name, None), None).cassandra_version


def current_contact_points(name: str | None = None) -> list[str]:
    """Contact points of the current (or named) cluster, for the load commands."""
    return attach(name).contact_points


def current_access(name: str | None = None) -> CqlAccess | None:
    """How clients authenticate to and encrypt with the current (or named) cluster (an
    external cluster's user, password variable, CA and local datacenter), or None."""
    nodes = attach(name).nodes
    return nodes[0].access if nodes else None


def remove(name: str, root: Path | None = None) -> None:
    """Stop and delete cluster ``name``, even when its ``state.json`` is unreadable: then
    its JVMs are found by their directory and stopped first. An external cluster is only
    forgotten (its ``destroy``): its nodes are not touched."""
    directory = state.cluster_dir(name, root)
    if not directory.exists():
        raise ClusterError(f"no cluster named {name!r} in {directory.parent}; nothing to remove")
    try:
        cluster = attach(name, root)
    except ClusterError:
        # unreadable state: the directory is all there is, and it is deleted next
        stop_leftovers(directory, deadline_s=0.0)
        shutil.rmtree(directory, ignore_errors=True)
        state.forget_current(name, root)
        owners.sweep()  # its namespaces and cgroups, if it was an isolated cluster
        return
    cluster.destroy()
