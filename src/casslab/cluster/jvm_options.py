"""The JVM options a cluster adds to its nodes' command lines (``casslab up --jvm-option``):
system properties Cassandra reads at start (``-Dcassandra.ring_delay_ms=5000``) and
``-XX:`` flags, after casslab's own so that they win. The heap and the collector have
their own fields; a class path, an agent or a main class is not an option (pure)."""

from __future__ import annotations

import re

_PROPERTY = re.compile(r"^-D[A-Za-z_][\w.\-]*(=[^\x00-\x1f]*)?$")
_XX = re.compile(r"^-XX:[+-]?[A-Za-z][A-Za-z0-9_]*(=[^\s\x00-\x1f]+)?$")
_HEAP = re.compile(r"^(-Xmx|-Xms|-XX:MaxHeapSize)")
_COLLECTOR = re.compile(r"^-XX:\+Use\w*GC$")


def problem(option: str) -> str | None:
    """Why ``option`` cannot be one of a node's JVM options, or None when it can."""
    if _HEAP.match(option):
        return f"JVM option {option!r}: the heap is --heap (heap: in an experiment file)"
    if _COLLECTOR.match(option):
        return f"JVM option {option!r}: the collector is --gc (gc: in an experiment file)"
    if _PROPERTY.match(option) or _XX.match(option):
        return None
    return (
        f"JVM option {option!r}: casslab adds system properties (-Dname=value, e.g. "
        "-Dcassandra.ring_delay_ms=5000) and -XX: flags (e.g. -XX:+AlwaysPreTouch) to the "
        "nodes' java command; give one of those"
    )


def checked(options: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``options`` as given, or ValueError naming the first that is refused."""
    for option in options:
        reason = problem(option)
        if reason is not None:
            raise ValueError(reason)
    return tuple(options)
