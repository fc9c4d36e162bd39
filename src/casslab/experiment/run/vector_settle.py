"""Put a freshly preloaded vector table on disk the way a restored copy of it is: flushed and
major-compacted on every node, so the trial that loaded the data and the trials that
restore its capture search the same SSTables.

Why: right after a load, Cassandra 5.0's SAI vector index is queryable but split over the
memtable's graph and one graph per SSTable the load flushed; a restored capture is flushed
SSTables only. In one experiment the trial that loaded 20,000 x 128 vectors measured
recall@10 0.72 while the trials that restored the same data measured 0.998 (and the node
of tests/cli/test_stress_vector_integration.py: 0.76 in the memtable, 0.998 after flush and
compaction). So the first trial of each data set was not comparable with the rest. After
:func:`settle` the capture is taken of the one compacted SSTable per node, and every trial
of the data set, loading or restoring, searches it.

Only tables with a vector index are settled: other schemas keep the SSTables their load
left, which is what their capture restores too. :func:`vector_tables` is the pure judgement
on the schema rows; :func:`tables_to_settle` and :func:`settle` ask the nodes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from casslab.cluster import Cluster
from casslab.errors import CasslabError, ExperimentError
from casslab.experiment.run.index_build import asking_nodes
from casslab.record import Record

Q_INDEXES = "SELECT table_name, options FROM system_schema.indexes WHERE keyspace_name = %s"
Q_COLUMNS = (
    "SELECT table_name, column_name, type FROM system_schema.columns WHERE keyspace_name = %s"
)


class IndexTarget(Record):
    """The column one index of the schema is on (``system_schema.indexes``)."""

    table: str
    column: str  # the target option, unquoted


class ColumnType(Record):
    """One column of the schema and its CQL type (``system_schema.columns``)."""

    table: str
    column: str
    type: str  # e.g. "vector<float, 128>"


def target_column(target: str) -> str:
    """The column an index's ``target`` option names: ``"Embedding"`` -> ``Embedding``,
    ``values(tags)`` -> ``tags``."""
    inner = target.split("(", 1)[1].rstrip(")") if target.endswith(")") else target
    if len(inner) >= 2 and inner[0] == inner[-1] == '"':
        return inner[1:-1].replace('""', '"')
    return inner


def vector_tables(indexes: Iterable[IndexTarget], columns: Iterable[ColumnType]) -> list[str]:
    """The tables, sorted, with an index on a column of a ``vector<...>`` type."""
    vectors = {(c.table, c.column) for c in columns if c.type.startswith("vector<")}
    return sorted({i.table for i in indexes if (i.table, i.column) in vectors})


def keyspace_vector_tables(session: Any, keyspace: str) -> list[str]:
    """:func:`vector_tables` of ``keyspace``'s schema (the same on every node)."""
    indexes = [
        IndexTarget(table=str(r.table_name), column=target_column(dict(r.options)["target"]))
        for r in session.execute(Q_INDEXES, (keyspace,), timeout=30)
        if r.options and "target" in dict(r.options)
    ]
    if not indexes:
        return []
    columns = [
        ColumnType(table=str(r.table_name), column=str(r.column_name), type=str(r.type))
        for r in session.execute(Q_COLUMNS, (keyspace,), timeout=30)
    ]
    return vector_tables(indexes, columns)


def tables_to_settle(cluster: Cluster, keyspace: str) -> list[str]:
    """The tables of ``keyspace`` with a vector index (:func:`vector_tables`), asked of the
    cluster. Raises :class:`ExperimentError` naming the query that failed."""
    with asking_nodes(cluster, keyspace, "reading its vector indexes from the schema"):
        return keyspace_vector_tables(cluster.session(), keyspace)


def settle(cluster: Cluster, keyspace: str, tables: list[str], *, timeout_s: float) -> None:
    """Flush and major-compact ``tables`` of ``keyspace`` on every node (each nodetool call
    within ``timeout_s``); the caller waits for the indexes to be built after. Raises
    :class:`ExperimentError` naming the table and node where it failed."""
    for node in cluster.nodes:
        for table in tables:
            try:
                cluster.nodetool(node.number, "flush", keyspace, table, timeout_s=timeout_s)
                cluster.nodetool(node.number, "compact", keyspace, table, timeout_s=timeout_s)
            except CasslabError as error:
                raise ExperimentError(
                    f"keyspace {keyspace}: flushing and compacting the vector table {table} "
                    f"after its preload failed on node {node.number}: {error}"
                ) from error
