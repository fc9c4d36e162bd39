"""CQL administration shared by every backend: driver sessions, user keyspaces, emptying a
cluster, and the settings a node really runs with. I/O over CQL only, so it works the same
for local processes, isolated nodes, remote hosts and an existing cluster."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from casslab.errors import ClusterError

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
        addresses: Sequence[str],
        port: int,
        *,
        keyspace: str | None = None,
        pinned: bool = False,
    ) -> Any:
        """A session to the nodes at ``addresses``; ``pinned`` sends every request to the
        first of them (it coordinates), otherwise the driver balances over all."""
        from cassandra.cluster import EXEC_PROFILE_DEFAULT, ExecutionProfile
        from cassandra.cluster import Cluster as Driver
        from cassandra.policies import RoundRobinPolicy, WhiteListRoundRobinPolicy

        policy = WhiteListRoundRobinPolicy([addresses[0]]) if pinned else RoundRobinPolicy()
        profile = ExecutionProfile(load_balancing_policy=policy, request_timeout=REQUEST_TIMEOUT_S)
        driver = Driver(
            contact_points=list(addresses),
            port=port,
            execution_profiles={EXEC_PROFILE_DEFAULT: profile},
            connect_timeout=10,
            control_connection_timeout=10,
        )
        self._drivers.append(driver)
        try:
            return driver.connect(keyspace)
        except Exception as error:  # the driver raises several unrelated types here
            points = ", ".join(f"{a}:{port}" for a in addresses)
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


def empty(session: Any, mode: str) -> list[str]:
    """Drop (``"drop"``) every user keyspace, or truncate (``"truncate"``) every table of
    them; returns the keyspaces affected."""
    keyspaces = user_keyspaces(session)
    for keyspace in keyspaces:
        if mode == "drop":
            session.execute(f'DROP KEYSPACE IF EXISTS "{keyspace}"', timeout=DDL_TIMEOUT_S)
            continue
        tables = session.execute(
            "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s",
            (keyspace,),
        )
        for row in tables:
            session.execute(f'TRUNCATE "{keyspace}"."{row.table_name}"', timeout=DDL_TIMEOUT_S)
    return keyspaces


def applied_settings(session: Any) -> dict[str, str]:
    """``system_views.settings`` of the session's node: what Cassandra really runs with."""
    rows = session.execute("SELECT name, value FROM system_views.settings")
    return {r.name: r.value for r in rows}
