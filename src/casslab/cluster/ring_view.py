"""Which nodes a node counts in its ring, read over CQL from its own tables.

A node is a ring member in node N's view when N's ``system.local`` (for N itself: its
bootstrap ``COMPLETED``) or ``system.peers_v2`` (for a peer) holds its tokens: Cassandra
writes a peer's tokens there when the peer turns NORMAL, and reloads them from there on a
restart, as nodetool's ``N`` does. That a peer is UP is not in any table: the start reads
it from the node's log (``InetAddress /X is now UP``). One CQL query per node replaces a
``nodetool status``, a JVM of its own (1-3 s on two cores).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable
from contextlib import suppress
from typing import Any

from casslab.cqlaccess import CqlAccess, driver_options
from casslab.record import Record


class LocalRow(Record):
    """``system.local``'s part of the view."""

    address: str
    bootstrapped: str | None = None
    tokens: frozenset[str] = frozenset()


class PeerRow(Record):
    """One ``system.peers_v2`` row."""

    peer: str
    tokens: frozenset[str] = frozenset()


def members(local: LocalRow, peers: Iterable[PeerRow]) -> set[str]:
    """The addresses this node counts as ring members with tokens (pure)."""
    found = {peer.peer for peer in peers if peer.tokens}
    if local.bootstrapped == "COMPLETED" and local.tokens:
        found.add(local.address)
    return found


def read_members(session: Any, address: str) -> set[str]:
    """:func:`members` of the node ``session`` is pinned to (``address`` is its own)."""
    local_rows = list(session.execute("SELECT bootstrapped, tokens FROM system.local"))
    peer_rows = session.execute("SELECT peer, tokens FROM system.peers_v2")
    local = LocalRow(
        address=address,
        bootstrapped=local_rows[0].bootstrapped if local_rows else None,
        tokens=frozenset(local_rows[0].tokens or ()) if local_rows else frozenset(),
    )
    peers = [PeerRow(peer=str(row.peer), tokens=frozenset(row.tokens or ())) for row in peer_rows]
    return members(local, peers)


class RingReader:
    """:func:`read_members` of each node through one driver per node that reads neither
    schema nor token metadata (a full driver connects in over a second on two busy cores),
    opened on first use and all closed by :meth:`close` (a start polls every half second)."""

    def __init__(self, access: CqlAccess | None = None) -> None:
        # the driver's import (0.3-0.5 s) overlaps the nodes' start instead of the check
        threading.Thread(target=importlib.import_module, args=("cassandra.cluster",)).start()
        self._drivers: dict[tuple[str, int], Any] = {}
        self._open: dict[tuple[str, int], Any] = {}
        self._access = access

    def __call__(self, address: str, port: int) -> set[str]:
        key = (address, port)
        if key not in self._open:
            self._open[key] = self._connect(address, port)
        return read_members(self._open[key], address)

    def _connect(self, address: str, port: int) -> Any:
        from cassandra.cluster import EXEC_PROFILE_DEFAULT, ExecutionProfile
        from cassandra.cluster import Cluster as Driver
        from cassandra.policies import WhiteListRoundRobinPolicy

        profile = ExecutionProfile(
            load_balancing_policy=WhiteListRoundRobinPolicy([address]), request_timeout=10
        )
        driver = Driver(
            contact_points=[address],
            port=port,
            execution_profiles={EXEC_PROFILE_DEFAULT: profile},
            connect_timeout=10,
            control_connection_timeout=10,
            schema_metadata_enabled=False,
            token_metadata_enabled=False,
            **driver_options(self._access),
        )
        self._drivers[(address, port)] = driver
        return driver.connect()

    def close(self) -> None:
        for driver in self._drivers.values():
            with suppress(Exception):
                driver.shutdown()
        self._drivers.clear()
        self._open.clear()
