"""Finding an external cluster's nodes: contact points as the user writes them (pure),
nodes from ``system.local`` and ``system.peers_v2`` rows (pure), and the two queries,
asked of one node so that its own row and its peers make the whole ring."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from casslab.cluster.external.external_state import (
    DEFAULT_NATIVE_PORT,
    DEFAULT_STORAGE_PORT,
    DiscoveredNode,
)
from casslab.errors import ConfigError

Q_LOCAL = (
    "SELECT rpc_address, rpc_port, broadcast_address, broadcast_port, data_center, rack, "
    "host_id, release_version, cluster_name FROM system.local"
)
Q_LOCAL_V1 = (  # before 4.0: no ports in system.local
    "SELECT rpc_address, broadcast_address, data_center, rack, host_id, release_version, "
    "cluster_name FROM system.local"
)
Q_PEERS_V2 = (
    "SELECT peer, peer_port, native_address, native_port, data_center, rack, host_id, "
    "release_version FROM system.peers_v2"
)
Q_PEERS = "SELECT peer, rpc_address, data_center, rack, host_id, release_version FROM system.peers"
_ANY_ADDRESS = {"0.0.0.0", "::"}


def parse_contact_points(
    texts: Iterable[str], default_port: int = DEFAULT_NATIVE_PORT
) -> list[tuple[str, int]]:
    """``["10.0.0.11,10.0.0.12:9043", "[::1]:9042"]`` -> ``[(host, port), ...]`` in the
    given order, without repeats; a :class:`ConfigError` naming a malformed one."""
    found: list[tuple[str, int]] = []
    for text in texts:
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            point = _parse_one(item, default_port)
            if point not in found:
                found.append(point)
    if not found:
        raise ConfigError(
            "--contact-points: give at least one node address, e.g. 10.0.0.11,10.0.0.12"
        )
    return found


_HOST = re.compile(r"[A-Za-z0-9._-]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.%A-Za-z]*", re.ASCII)


def _parse_one(item: str, default_port: int) -> tuple[str, int]:
    host, port_text = item, ""
    if item.startswith("["):  # [v6]:port
        host, _, rest = item[1:].partition("]")
        port_text = rest.removeprefix(":")
    elif item.count(":") == 1:
        host, _, port_text = item.partition(":")
    if port_text and not (port_text.isdigit() and 1 <= int(port_text) <= 65535):
        raise ConfigError(
            f"contact point {item!r}: the port must be a number 1-65535, e.g. 10.0.0.11:9042"
        )
    if not _HOST.fullmatch(host):
        raise ConfigError(
            f"contact point {item!r}: expected host[:port] (a name or address: letters, "
            "digits, '.', '-', and ':' in [IPv6]), e.g. 10.0.0.11:9042"
        )
    return host, int(port_text) if port_text else default_port


def point_text(point: tuple[str, int]) -> str:
    host, port = point
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _address(preferred: Any, fallback: Any) -> str:
    """A client address: ``preferred`` unless missing or a wildcard (a node listening on
    every interface reports 0.0.0.0 as its rpc_address), else ``fallback``."""
    text = _text(preferred)
    if text is None or text in _ANY_ADDRESS:
        text = _text(fallback) or ""
    return str(ipaddress.ip_address(text)) if _is_ip(text) else text


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def local_node(row: Any, contacted: tuple[str, int]) -> DiscoveredNode:
    """The answering node from its ``system.local`` row; ``contacted`` is where casslab
    reached it (its address when the row's is a wildcard)."""
    host, port = contacted
    return DiscoveredNode(
        address=_address(getattr(row, "rpc_address", None), host),
        native_port=getattr(row, "rpc_port", None) or port,
        storage_port=getattr(row, "broadcast_port", None) or DEFAULT_STORAGE_PORT,
        datacenter=_text(getattr(row, "data_center", None)),
        rack=_text(getattr(row, "rack", None)),
        host_id=_text(getattr(row, "host_id", None)),
        release_version=_text(getattr(row, "release_version", None)),
    )


def peer_node(row: Any, default_port: int) -> DiscoveredNode:
    """A peer from its ``system.peers_v2`` row (or ``system.peers``, without ports)."""
    native = getattr(row, "native_address", None) or getattr(row, "rpc_address", None)
    return DiscoveredNode(
        address=_address(native, getattr(row, "peer", None)),
        native_port=getattr(row, "native_port", None) or default_port,
        storage_port=getattr(row, "peer_port", None) or DEFAULT_STORAGE_PORT,
        datacenter=_text(getattr(row, "data_center", None)),
        rack=_text(getattr(row, "rack", None)),
        host_id=_text(getattr(row, "host_id", None)),
        release_version=_text(getattr(row, "release_version", None)),
    )


def nodes_from_rows(
    local_rows: Sequence[Any], peer_rows: Sequence[Any], contacted: tuple[str, int]
) -> list[DiscoveredNode]:
    """Every node of the ring, ordered by datacenter, rack and address; a node seen twice
    (by host id, else by address) is kept once."""
    nodes = [local_node(row, contacted) for row in local_rows[:1]]
    nodes += [peer_node(row, contacted[1]) for row in peer_rows]
    unique: dict[str, DiscoveredNode] = {}
    for node in nodes:
        unique.setdefault(node.host_id or node.contact_point, node)
    return sorted(
        unique.values(),
        key=lambda n: (n.datacenter or "", n.rack or "", _sort_address(n.address), n.native_port),
    )


def _sort_address(address: str) -> tuple[int, Any]:
    if _is_ip(address):
        parsed = ipaddress.ip_address(address)
        return (parsed.version, int(parsed))
    return (9, address)


Execute = Callable[[str], Sequence[Any]]
"""Runs one query on the node that answers for the ring; returns its rows."""


def query_ring(execute: Execute, contacted: tuple[str, int]) -> tuple[list[DiscoveredNode], str]:
    """The ring as one node sees it, and Cassandra's cluster name. ``system.peers_v2``
    (4.0 and later) is read when it exists, else ``system.peers``."""
    from cassandra import InvalidRequest

    try:
        local = list(execute(Q_LOCAL))
    except InvalidRequest:  # a 3.x node has no port columns: ask without them
        local = list(execute(Q_LOCAL_V1))
    try:
        peers = list(execute(Q_PEERS_V2))
    except InvalidRequest:  # no peers_v2 (before 4.0, some managed services)
        peers = list(execute(Q_PEERS))
    name = _text(getattr(local[0], "cluster_name", None)) if local else None
    return nodes_from_rows(local, peers, contacted), name or ""
