"""CQL administration shared by every backend: driver sessions, user keyspaces, emptying a
cluster, and the settings a node really runs with. I/O over CQL only, so it works the same
for local processes, isolated nodes, remote hosts and an existing cluster."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from casslab.cqlaccess import CqlAccess, driver_options
from casslab.errors import ClusterError, ConfigError

SYSTEM_KEYSPACES = frozenset(
    {
        "system",
        "system_auth",
        "system_schema",
        "system_distributed",
        "system_traces",
        "system_views",
        "system_virtual_schema",
        "system_cluster_metadata",
    }
)
REQUEST_TIMEOUT_S = 30
DDL_TIMEOUT_S = 60


class Sessions:
    """cassandra-driver sessions of one cluster, all closed by :meth:`close`."""

    def __init__(self) -> None:
        self._drivers: list[Any] = []

    def connect(
        self,
        addresses: Sequence[str | tuple[str, int]],
        port: int,
        *,
        keyspace: str | None = None,
        pinned: bool = False,
        access: CqlAccess | None = None,
        metadata: bool = True,
    ) -> Any:
        """A session to the nodes at ``addresses`` (or ``(address, port)`` pairs);
        ``pinned`` sends every request to the first of them (it coordinates), otherwise the
        driver balances over all (the local datacenter's first, when ``access`` names
        one). ``access`` adds a user (its password read now) and TLS. Without ``metadata``
        the driver reads neither the schema nor the token ring when it connects (over a
        second on two busy cores), for sessions that only query system tables."""
        from cassandra.cluster import EXEC_PROFILE_DEFAULT, ExecutionProfile
        from cassandra.cluster import Cluster as Driver
        from cassandra.policies import (
            DCAwareRoundRobinPolicy,
            RoundRobinPolicy,
            WhiteListRoundRobinPolicy,
        )

        options = driver_options(access)  # before any connection: an unset password variable
        first = addresses[0] if isinstance(addresses[0], str) else addresses[0][0]
        local_dc = access.local_dc if access is not None else None
        policy: Any = (
            WhiteListRoundRobinPolicy([first])
            if pinned
            else DCAwareRoundRobinPolicy(local_dc)
            if local_dc
            else RoundRobinPolicy()
        )
        profile = ExecutionProfile(load_balancing_policy=policy, request_timeout=REQUEST_TIMEOUT_S)
        driver = Driver(
            contact_points=list(addresses),
            port=port,
            execution_profiles={EXEC_PROFILE_DEFAULT: profile},
            connect_timeout=10,
            control_connection_timeout=10,
            schema_metadata_enabled=metadata,
            token_metadata_enabled=metadata,
            **options,
        )
        self._drivers.append(driver)
        try:
            return driver.connect(keyspace)
        except Exception as error:  # the driver raises several unrelated types here
            points = ", ".join(
                f"{a}:{port}" if isinstance(a, str) else f"{a[0]}:{a[1]}" for a in addresses
            )
            raise ClusterError(
                f"connecting to {points} failed: {error}; check `casslab status`"
            ) from error

    def close(self) -> None:
        for driver in self._drivers:
            with suppress(Exception):
                driver.shutdown()
        self._drivers.clear()


def user_keyspaces(session: Any) -> list[str]:
    rows = session.execute("SELECT keyspace_name FROM system_schema.keyspaces")
    return sorted(r.keyspace_name for r in rows if r.keyspace_name not in SYSTEM_KEYSPACES)


def empty(session: Any, mode: str, tables: Sequence[str] | None = None) -> list[str]:
    """Drop (``"drop"``) every user keyspace, or truncate (``"truncate"``) every table of
    them; returns the keyspaces affected. ``tables`` limits it to those named: keyspaces
    for a drop, keyspaces or ``keyspace.table`` for a truncate (see :func:`truncate`)."""
    if mode == "truncate" and tables is not None:
        return truncate(session, tables)
    keyspaces = user_keyspaces(session)
    if tables is not None:  # drop: only the keyspaces named
        _check_names(tables)
        if any("." in name for name in tables):
            raise ConfigError(
                f"drop {', '.join(tables)}: a drop takes keyspaces; truncate empties tables"
            )
        keyspaces = [k for k in keyspaces if k in tables]
    for keyspace in keyspaces:
        if mode == "drop":
            session.execute(f'DROP KEYSPACE IF EXISTS "{keyspace}"', timeout=DDL_TIMEOUT_S)
            continue
        for table in _tables(session, keyspace):
            session.execute(f'TRUNCATE "{keyspace}"."{table}"', timeout=DDL_TIMEOUT_S)
    return keyspaces


def truncate(session: Any, tables: Sequence[str]) -> list[str]:
    """Truncate the named tables (``keyspace.table``) and every table of the named
    keyspaces, nothing else; returns the names truncated. A keyspace or table that does
    not exist holds nothing to empty and is left out of the answer (before its trial's
    schema exists, a workload's keyspace is not there yet); naming a system keyspace is a
    :class:`ConfigError`, before anything is truncated."""
    if not tables:
        raise ConfigError("truncate: name the keyspaces or keyspace.tables to empty")
    _check_names(tables)
    keyspaces = user_keyspaces(session)
    truncated: list[str] = []
    for name in dict.fromkeys(tables):
        keyspace, _, table = name.partition(".")
        existing = _tables(session, keyspace) if keyspace in keyspaces else []
        chosen = [table] if table else existing
        if not chosen or not set(chosen) <= set(existing):
            continue
        for each in chosen:
            session.execute(f'TRUNCATE "{keyspace}"."{each}"', timeout=DDL_TIMEOUT_S)
        truncated.append(name)
    return truncated


def _check_names(names: Sequence[str]) -> None:
    """A :class:`ConfigError` when a name is empty or in a system keyspace."""
    for name in names:
        keyspace = name.partition(".")[0]
        if not keyspace:
            raise ConfigError(f"{name!r}: give a keyspace, or keyspace.table")
        if keyspace in SYSTEM_KEYSPACES:
            raise ConfigError(f"{name}: {keyspace} is a system keyspace; casslab never empties it")


def _tables(session: Any, keyspace: str) -> list[str]:
    rows = session.execute(
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s", (keyspace,)
    )
    return sorted(r.table_name for r in rows)


def applied_settings(session: Any) -> dict[str, str]:
    """``system_views.settings`` of the session's node: what Cassandra really runs with."""
    rows = session.execute("SELECT name, value FROM system_views.settings")
    return {r.name: r.value for r in rows}
