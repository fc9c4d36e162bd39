"""Which nodes a node counts in its ring, read over CQL from its own tables.

A node is a ring member in node N's view when N's ``system.local`` (for N itself: its
bootstrap ``COMPLETED``) or ``system.peers_v2`` (for a peer) holds its tokens: Cassandra
writes a peer's tokens there when the peer turns NORMAL, and reloads them from there on a
restart, as nodetool's ``N`` does. That a peer is UP is not in any table: the start reads
it from the node's log (``InetAddress /X is now UP``). One CQL query per node replaces a
``nodetool status``, a JVM of its own (1-3 s on two cores); its output and the log lines
are read here too, for every backend.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterable
from typing import Any

from casslab.cluster.admin import Sessions
from casslab.cqlaccess import CqlAccess
from casslab.record import Record

_PEER_UP = re.compile(r"InetAddress /(\d+\.\d+\.\d+\.\d+)(?::\d+)? is now UP")
_STATUS_RE = re.compile(r"^([UD])([NLJM])\s+(\d+\.\d+\.\d+\.\d+)", re.MULTILINE)
# How long the logs may stay silent about a peer before nodetool is asked anyway: the
# log lines only save nodetool rounds, nodetool decides (a log format of another
# version, a line rotated away).
LOGGED_UP_LIMIT_S = 10.0


def peers_logged_up(log_text: str) -> set[str]:
    """The addresses a node's log says it saw UP (pure)."""
    return {m.group(1) for m in _PEER_UP.finditer(log_text)}


def ring_by_nodetool(status_text: str) -> set[str]:
    """The addresses ``nodetool status`` shows UP and NORMAL (pure)."""
    return {m.group(3) for m in _STATUS_RE.finditer(status_text) if m.group(1, 2) == ("U", "N")}


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
    """:func:`read_members` of each node through one pinned session per node that reads
    no metadata, opened on first use and all closed by :meth:`close` (a start polls every
    half second)."""

    def __init__(self, access: CqlAccess | None = None) -> None:
        # the driver's import (0.3-0.5 s) overlaps the nodes' start instead of the check
        threading.Thread(target=importlib.import_module, args=("cassandra.cluster",)).start()
        self._sessions = Sessions()
        self._open: dict[tuple[str, int], Any] = {}
        self._access = access

    def __call__(self, address: str, port: int) -> set[str]:
        key = (address, port)
        if key not in self._open:
            self._open[key] = self._sessions.connect(
                [address], port, pinned=True, access=self._access, metadata=False
            )
        return read_members(self._open[key], address)

    def close(self) -> None:
        self._sessions.close()
        self._open.clear()
