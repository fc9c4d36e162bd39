"""Wait until every secondary index of a trial's keyspace is built, on every node, after its
data was loaded: :func:`wait_built` returns how long that took (the ``index_build_s`` KPI,
:mod:`casslab.analysis.kpi_load`), or None when the keyspace has no index.

What "built" means, per node (each node reports only its own indexes, so each is asked
through a session pinned to it):

* an SAI index (``StorageAttachedIndex``, also a plain ``CREATE INDEX`` where
  ``default_secondary_index`` is ``sai``): its row of ``system_views.sai_column_indexes``
  (Cassandra 5.0) says ``is_queryable`` and not ``is_building``;
* any other index (legacy secondary indexes): its row in ``system."IndexInfo"``, where
  Cassandra marks the indexes whose build finished.

:func:`pending_indexes` is the pure judgement on those rows; the rest asks the nodes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from casslab.cluster import Cluster
from casslab.errors import ExperimentError
from casslab.record import Record

SAI_CLASS = "StorageAttachedIndex"
Q_SCHEMA = "SELECT index_name, options FROM system_schema.indexes WHERE keyspace_name = %s"
Q_SAI = (
    "SELECT index_name, is_queryable, is_building FROM system_views.sai_column_indexes"
    " WHERE keyspace_name = %s ALLOW FILTERING"
)
Q_BUILT = 'SELECT index_name FROM system."IndexInfo" WHERE table_name = %s'
POLL_S = 0.5
TIMEOUT_S = 1800.0  # the wait's limit when the run sets no trial timeout


class IndexDefinition(Record):
    """One index of the keyspace's schema (``system_schema.indexes``)."""

    name: str
    sai: bool  # a storage-attached index; else a legacy one


class SaiStatus(Record):
    """One row of ``system_views.sai_column_indexes`` on one node."""

    name: str
    queryable: bool
    building: bool


def definition(name: str, options: dict[str, str] | None) -> IndexDefinition:
    """The index ``name`` of a ``system_schema.indexes`` row with ``options``: SAI when its
    ``class_name`` names the storage-attached index."""
    class_name = (options or {}).get("class_name", "")
    return IndexDefinition(name=name, sai=class_name.endswith(SAI_CLASS) or class_name == "sai")


def pending_indexes(
    indexes: Iterable[IndexDefinition], sai: Iterable[SaiStatus], built: Iterable[str]
) -> list[str]:
    """The names of ``indexes`` one node has not built yet, in order: an SAI index whose
    status row is missing, not queryable or still building; another index not among the
    node's ``built`` ones."""
    status = {row.name: row for row in sai}
    done = set(built)
    pending: list[str] = []
    for index in indexes:
        if index.sai:
            row = status.get(index.name)
            if row is None or not row.queryable or row.building:
                pending.append(index.name)
        elif index.name not in done:
            pending.append(index.name)
    return pending


def keyspace_indexes(session: Any, keyspace: str) -> list[IndexDefinition]:
    """The indexes of ``keyspace``'s tables, from the schema (the same on every node)."""
    rows = session.execute(Q_SCHEMA, (keyspace,), timeout=30)
    return [definition(str(row.index_name), dict(row.options or {})) for row in rows]


def node_pending(session: Any, keyspace: str, indexes: list[IndexDefinition]) -> list[str]:
    """:func:`pending_indexes` of the node ``session`` is pinned to."""
    sai: list[SaiStatus] = []
    if any(index.sai for index in indexes):
        rows = session.execute(Q_SAI, (keyspace,), timeout=30)
        sai = [
            SaiStatus(name=r.index_name, queryable=bool(r.is_queryable), building=r.is_building)
            for r in rows
        ]
    built: list[str] = []
    if not all(index.sai for index in indexes):
        built = [str(r.index_name) for r in session.execute(Q_BUILT, (keyspace,), timeout=30)]
    return pending_indexes(indexes, sai, built)


@contextmanager
def asking_nodes(cluster: Cluster, keyspace: str, what: str) -> Iterator[None]:
    """Queries of the nodes about ``keyspace``: a driver error (it raises many types)
    becomes an :class:`ExperimentError` saying ``what`` was asked; the sessions are closed
    after, however it ended."""
    try:
        yield
    except ExperimentError:
        raise
    except Exception as error:
        raise ExperimentError(
            f"keyspace {keyspace}: {what} failed: {error}; is every node up (casslab status)?"
        ) from error
    finally:
        cluster.close_sessions()


def wait_built(
    cluster: Cluster,
    keyspace: str,
    *,
    timeout_s: float,
    since: float | None = None,
    on_wait: Callable[[], None] | None = None,
) -> float | None:
    """Wait until every node has built every index of ``keyspace``; the seconds from
    ``since`` (a :func:`time.monotonic` instant, default now: the end of the load) until
    all were, or None when the keyspace has no index. ``on_wait`` is called once, when
    the first look finds an index not built (there is something to wait for). Raises
    :class:`ExperimentError` naming the indexes still pending after ``timeout_s``, or the
    query that failed."""
    start = time.monotonic() if since is None else since
    with asking_nodes(cluster, keyspace, "asking the nodes whether its indexes are built"):
        indexes = keyspace_indexes(cluster.session(), keyspace)
        if not indexes:
            return None
        deadline = time.monotonic() + timeout_s
        numbers = [node.number for node in cluster.nodes]
        waiting = False
        while True:
            pending = {
                number: names
                for number in numbers
                if (names := node_pending(cluster.session(node=number), keyspace, indexes))
            }
            if not pending:
                return time.monotonic() - start
            if not waiting and on_wait is not None:
                on_wait()
            waiting = True
            if time.monotonic() >= deadline:
                raise ExperimentError(
                    f"keyspace {keyspace}: indexes not built {timeout_s:g} s after the load, "
                    f"by node: {pending}; see the nodes' logs (SecondaryIndexManager, "
                    "StorageAttachedIndex lines) for why, or give the trials a longer timeout"
                )
            time.sleep(POLL_S)
