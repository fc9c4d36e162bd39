"""Cassandra's view of itself from literal ``system_views`` rows (no node)."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from casslab.metrics.catalogue import family, names
from casslab.metrics.server_rows import (
    cache_counts,
    cache_hit_pcts,
    largest_user,
    per_read_figures,
    stage_figures,
)


class Pool(NamedTuple):
    name: str
    active_tasks: int
    pending_tasks: int
    blocked_tasks: int
    blocked_tasks_all_time: int


class Cache(NamedTuple):
    name: str
    hit_count: int
    request_count: int


class PerRead(NamedTuple):
    keyspace_name: str
    p99th: float | None


def test_every_stage_gets_its_four_figures() -> None:
    rows = [Pool("MutationStage", 2, 40, 0, 0), Pool("Native-Transport-Requests", 8, 0, 3, 120)]
    figures = stage_figures(rows)
    assert figures == {
        "cassandra.stage_active/MutationStage": 2.0,
        "cassandra.stage_pending/MutationStage": 40.0,
        "cassandra.stage_blocked/MutationStage": 0.0,
        "cassandra.stage_blocked_all_time/MutationStage": 0.0,
        "cassandra.stage_active/Native-Transport-Requests": 8.0,
        "cassandra.stage_pending/Native-Transport-Requests": 0.0,
        "cassandra.stage_blocked/Native-Transport-Requests": 3.0,
        "cassandra.stage_blocked_all_time/Native-Transport-Requests": 120.0,
    }
    assert {family(k) for k in figures} <= names()


def test_cache_hit_rate_is_over_the_interval_not_since_start() -> None:
    before = cache_counts([Cache("keys", 900, 1000), Cache("chunks", 0, 0), Cache("rows", 5, 9)])
    after = cache_counts([Cache("keys", 930, 1100), Cache("chunks", 75, 100), Cache("rows", 9, 9)])
    # keys: 30 hits of 100 requests in between, although 93% since the node started
    assert cache_hit_pcts(before, after) == {
        "cassandra.key_cache_hit_pct": pytest.approx(30.0),
        "cassandra.chunk_cache_hit_pct": pytest.approx(75.0),
    }


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({}, {"keys": (10.0, 20.0)}),  # the first reading: nothing to diff
        ({"keys": (10.0, 20.0)}, {"keys": (10.0, 20.0)}),  # no request in between
        ({"keys": (10.0, 20.0)}, {"keys": (1.0, 2.0)}),  # the node restarted
    ],
)
def test_no_hit_rate_without_requests_in_between(
    before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]]
) -> None:
    assert cache_hit_pcts(before, after) == {}


def test_per_read_figures_take_the_worst_user_table() -> None:
    tombstones = [PerRead("system", 5000.0), PerRead("ks", 12.0), PerRead("ks2", 310.0)]
    rows = [PerRead("system_schema", 90.0), PerRead("ks", 1.0), PerRead("ks2", None)]
    assert per_read_figures(tombstones, rows) == {
        "cassandra.tombstones_per_read_p99": 310.0,
        "cassandra.rows_per_read_p99": 1.0,
    }
    assert largest_user([PerRead("system", 3.0)], "p99th") is None
