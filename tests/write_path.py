"""Which CPU samples of a node's profile fell in Cassandra's write path: the profile tests'
shared measure. JFR samples only threads running Java code and cuts stacks at 64 frames, so
one frame's share swings with the machine's load; every stack that passes through any frame
only a write runs through is the steadier count."""

from __future__ import annotations

from collections.abc import Mapping

WRITE_PATH = (
    "org.apache.cassandra.db.Mutation",
    "org.apache.cassandra.db.Keyspace.apply",
    "org.apache.cassandra.db.ColumnFamilyStore.apply",
    "org.apache.cassandra.db.memtable.",
    "org.apache.cassandra.db.partitions.AtomicBTreePartition",
    "org.apache.cassandra.db.commitlog.",
    "org.apache.cassandra.service.StorageProxy.mutate",
    "org.apache.cassandra.cql3.statements.ModificationStatement",
)
"""Frames that only a write runs through (class or method prefixes)."""


def write_path_percent(stacks: Mapping[str, int]) -> float:
    """The percentage of the samples whose stack (collapsed, frames joined by ``;``) passes
    through the write path."""
    total = sum(stacks.values())
    on_path = sum(
        count
        for stack, count in stacks.items()
        if any(frame.startswith(WRITE_PATH) for frame in stack.split(";"))
    )
    return 100.0 * on_path / total if total else 0.0
