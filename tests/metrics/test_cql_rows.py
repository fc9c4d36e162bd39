"""Turning virtual-table rows into catalogue figures (literal rows, no node)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from casslab.metrics.catalogue import names
from casslab.metrics.cql import named_rows, running_compactions, thread_pool_figures, user_sum


class Pool(NamedTuple):
    name: str
    pending_tasks: int
    active_tasks: int
    completed_tasks: int


@dataclass(frozen=True)
class Latency:
    keyspace_name: str
    count: int | None


POOLS = [
    Pool("CompactionExecutor", 2, 1, 51),
    Pool("MemtableFlushWriter", 0, 0, 70),
    Pool("MemtablePostFlush", 0, 0, 65),
    Pool("ReadStage", 0, 0, 1000),
]


def test_thread_pools() -> None:
    assert thread_pool_figures(POOLS) == {
        "cassandra.compactions_completed": 51.0,
        "cassandra.memtable_flushes": 65.0,
    }


def test_thread_pools_with_pending_stand_in() -> None:
    figures = thread_pool_figures(POOLS, with_pending=True)
    assert figures["cassandra.compactions_pending"] == 2.0
    assert set(figures) <= names()


def test_user_sum_leaves_out_system_keyspaces() -> None:
    rows = [
        Latency("system", 500),
        Latency("system_schema", 20),
        Latency("ks1", 10),
        Latency("ks2", 5),
        Latency("ks3", None),
    ]
    assert user_sum(rows, "count") == 15.0


def test_running_compactions_counts_every_compaction_kind() -> None:
    kinds = ["compaction", "Major compaction", "cleanup", "index_build", "COMPACTION"]
    assert running_compactions(kinds) == 3
    assert running_compactions([]) == 0


def test_named_rows_make_one_row_class_per_column_list() -> None:
    first = named_rows(["name", "completed_tasks"], [("ReadStage", 10), ("MutationStage", 20)])
    again = named_rows(["name", "completed_tasks"], [("CompactionExecutor", 3)])
    assert first[1].name == "MutationStage"
    assert first[1].completed_tasks == 20
    assert type(first[0]) is type(again[0])  # made once: the driver's factory makes one each
    other = named_rows(["keyspace_name", "count"], [("ks", 4)])
    assert user_sum(other, "count") == 4.0
