"""``casslab attach``: make a running cluster casslab did not start its current cluster.

Every check comes before anything is written: the name, a cluster of casslab's own by that
name, the password's variable, the CA file, the contact points answering over CQL (with
the user and TLS), and the asked datacenter being one of the ring's. Only then is
``state.json`` saved (the user and the variable's name, never the password) and the
cluster made current.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from casslab.cluster import admin, state
from casslab.cluster.external.cluster import ExternalCluster, node_records, read_ring
from casslab.cluster.external.discovery import parse_contact_points, point_text
from casslab.cluster.external.external_spec import ExternalSpec
from casslab.cluster.external.external_state import DiscoveredNode, External
from casslab.cluster.model import BackendKind, ClusterState
from casslab.cqlaccess import CqlAccess, password, ssl_context
from casslab.errors import ClusterError, ConfigError
from casslab.validation import validation_message


def _access(
    user: str | None, password_env: str | None, tls_ca: Path | None, dc: str | None
) -> CqlAccess:
    """The checked access: a user with its password's variable set, a readable CA."""
    if user is not None and password_env is None:
        raise ConfigError(
            f"--user {user}: give --password-env VAR too, naming the environment variable "
            "that holds the password (casslab never takes a password on its command line)"
        )
    if password_env is not None and user is None:
        raise ConfigError(f"--password-env {password_env}: give --user too")
    try:
        access = CqlAccess(
            username=user,
            password_env=password_env,
            tls_ca_file=tls_ca.expanduser().resolve() if tls_ca is not None else None,
            local_dc=dc,
        )
    except ValidationError as error:
        raise ConfigError(validation_message(error)) from error
    password(access)  # its variable is set
    if access.tls_ca_file is not None:
        ssl_context(access.tls_ca_file)  # a readable PEM CA
    return access


def _check_name(name: str, root: Path | None) -> None:
    """A valid cluster name that is free, or an external cluster's (attached again)."""
    try:
        ExternalSpec(name=name)
    except ValidationError as error:
        raise ConfigError(validation_message(error, names={"name": "--name"})) from error
    if not state.cluster_dir(name, root).exists():
        return
    try:
        existing = state.load(name, root)
    except ClusterError:
        existing = None
    if existing is None or existing.spec.backend is not BackendKind.EXTERNAL:
        raise ClusterError(
            f"--name {name}: casslab already has a cluster of that name in "
            f"{state.cluster_dir(name, root)} that is not an external one; choose another "
            f"--name (or `casslab down --remove --name {name}` deletes it)"
        )


def attach_external(
    name: str,
    contact_points: Sequence[str],
    *,
    dc: str | None = None,
    user: str | None = None,
    password_env: str | None = None,
    tls_ca: Path | None = None,
    port: int = 9042,
    root: Path | None = None,
) -> ExternalCluster:
    """Attach the cluster at ``contact_points`` (``host[:port]``, ``port`` by default) as
    the external cluster ``name``, and make it the current one."""
    _check_name(name, root)
    points = parse_contact_points(contact_points, port)
    access = _access(user, password_env, tls_ca, dc)
    sessions = admin.Sessions()
    listed = ", ".join(point_text(p) for p in points)
    try:
        found, cluster_name = read_ring(sessions, points, access)
    except ClusterError as error:
        hint = " and that --tls-ca signs their certificates" if access.tls else ""
        raise ClusterError(
            f"attach {name}: none of the contact points {listed} answered over CQL "
            f"({error.__cause__ or error}); check the addresses, that the nodes are up"
            f"{hint}; nothing was saved"
        ) from error
    finally:
        sessions.close()
    if not found:
        raise ClusterError(f"attach {name}: {listed} showed no nodes; nothing was saved")
    datacenters = sorted({n.datacenter for n in found if n.datacenter is not None})
    if dc is not None and dc not in datacenters:
        raise ConfigError(
            f"--dc {dc}: the cluster at {listed} has no such datacenter; its datacenters "
            f"are {', '.join(datacenters) or 'none'}; nothing was saved"
        )
    directory = state.cluster_dir(name, root)
    versions = sorted({n.release_version for n in found if n.release_version})
    cluster_state = external_state(
        name,
        directory,
        found,
        External(
            contact_points=tuple(point_text(p) for p in points),
            access=access,
            cluster_name=cluster_name or None,
        ),
        version=", ".join(versions) or "unknown",
    )
    state.save(cluster_state)
    state.set_current(name, root)
    return ExternalCluster(cluster_state)


def external_state(
    name: str,
    directory: Path,
    found: Sequence[DiscoveredNode],
    external: External,
    *,
    version: str,
    created_at: datetime | None = None,
) -> ClusterState:
    """The state of an attached cluster: its nodes as found, how clients reach them, and
    no distribution or JVM of casslab's own (paths that never exist)."""
    return ClusterState(
        spec=ExternalSpec(name=name),
        cassandra_version=version,
        cassandra_source="external",
        lib_dir=directory / "no-distribution",
        java=directory / "no-java",
        java_feature=0,
        heap="unknown",
        directory=directory,
        nodes=node_records(found, directory, external.access),
        settings={},
        created_at=created_at or datetime.now(UTC),
        backend_state=external,
    )
