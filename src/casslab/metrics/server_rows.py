"""Cassandra's view of itself from ``system_views`` rows, made catalogue figures (pure):
every thread-pool stage (:func:`stage_figures`), the caches' hit rates over an interval
(:func:`cache_hit_pcts`) and the per-read histograms of user tables (:func:`largest_user`).
The queries are here too; :mod:`casslab.metrics.cql` runs them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from casslab.metrics.jmx_mbeans import SYSTEM_KEYSPACES
from casslab.metrics.metric_entry import member_metric

Q_CACHES = "SELECT name, hit_count, request_count FROM system_views.caches"
Q_TOMBSTONES = "SELECT keyspace_name, p99th FROM system_views.tombstones_per_read"
Q_ROWS = "SELECT keyspace_name, p99th FROM system_views.rows_per_read"

#: ``system_views.thread_pools`` column -> catalogue family, for every pool.
STAGE_COLUMNS = (
    ("active_tasks", "cassandra.stage_active"),
    ("pending_tasks", "cassandra.stage_pending"),
    ("blocked_tasks", "cassandra.stage_blocked"),
    ("blocked_tasks_all_time", "cassandra.stage_blocked_all_time"),
)
STAGE_COMPLETED_RATE = "cassandra.stage_completed_per_s"

#: ``system_views.caches`` name -> catalogue metric.
CACHE_METRICS = (
    ("keys", "cassandra.key_cache_hit_pct"),
    ("chunks", "cassandra.chunk_cache_hit_pct"),
)

#: Hits and requests of each cache at one instant.
CacheCounts = dict[str, tuple[float, float]]


def stage_figures(rows: Iterable[Any]) -> dict[str, float]:
    """Active, pending, blocked and all-time-blocked tasks of every pool, by recorded name
    (``cassandra.stage_pending/MutationStage``); a column a version lacks is left out."""
    out: dict[str, float] = {}
    for r in rows:
        for column, family in STAGE_COLUMNS:
            value = getattr(r, column, None)
            if value is not None:
                out[member_metric(family, r.name)] = float(value)
    return out


def cache_counts(rows: Iterable[Any]) -> CacheCounts:
    """(hits, requests) of the caches casslab reports, from ``system_views.caches`` rows."""
    wanted = dict(CACHE_METRICS)
    return {
        r.name: (float(r.hit_count or 0), float(r.request_count or 0))
        for r in rows
        if r.name in wanted
    }


def cache_hit_pcts(prev: CacheCounts, cur: CacheCounts) -> dict[str, float]:
    """Hit % of each cache over the interval between two readings: diff of hits over diff
    of requests. None for a cache with no request in between, or whose counts fell (the
    node restarted)."""
    out: dict[str, float] = {}
    for name, metric in CACHE_METRICS:
        if name not in prev or name not in cur:
            continue
        hits = cur[name][0] - prev[name][0]
        requests = cur[name][1] - prev[name][1]
        if requests > 0 and 0 <= hits <= requests:
            out[metric] = 100.0 * hits / requests
    return out


def largest_user(rows: Iterable[Any], column: str) -> float | None:
    """The largest ``column`` over rows of user keyspaces; None when there is none."""
    values = [
        float(getattr(r, column))
        for r in rows
        if r.keyspace_name not in SYSTEM_KEYSPACES and getattr(r, column) is not None
    ]
    return max(values) if values else None


def per_read_figures(tombstones: Iterable[Any], rows: Iterable[Any]) -> Mapping[str, float]:
    """Tombstones and rows per read, p99, the largest over user tables (none: left out)."""
    out: dict[str, float] = {}
    for name, table in (
        ("cassandra.tombstones_per_read_p99", tombstones),
        ("cassandra.rows_per_read_p99", rows),
    ):
        value = largest_user(table, "p99th")
        if value is not None:
            out[name] = value
    return out
