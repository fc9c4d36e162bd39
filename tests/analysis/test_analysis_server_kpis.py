"""KPIs of what Cassandra measured of itself, from literal metric rows worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from casslab.analysis.kpi_catalogue import kpi_spec
from casslab.analysis.kpi_server import KEY_STAGES, stage_kpi
from casslab.analysis.kpis import kpis_from_metrics

N1, N2 = "127.0.0.1", "127.0.0.2"


def frame() -> pd.DataFrame:
    series: dict[tuple[str, str], list[float]] = {
        (N1, "cassandra.stage_pending/MutationStage"): [0, 40, 80, 40],  # mean 40, max 80
        (N2, "cassandra.stage_pending/MutationStage"): [0, 0, 10, 10],  # mean 5
        (N1, "cassandra.stage_blocked_all_time/Native-Transport-Requests"): [100, 100, 130, 160],
        (N2, "cassandra.stage_blocked_all_time/Native-Transport-Requests"): [0, 0, 0, 2],
        (N1, "cassandra.write_latency_p99_ms"): [2.0, 4.0, 6.0, 8.0],  # mean 5
        (N2, "cassandra.write_latency_p99_ms"): [1.0, 1.0, 1.0, 1.0],
        (N1, "cassandra.key_cache_hit_pct"): [90, 90, 80, 80],  # mean 85
        (N2, "cassandra.key_cache_hit_pct"): [95, 95, 95, 95],
        (N1, "cassandra.dropped_messages"): [0, 0, 5, 7],
        (N2, "cassandra.dropped_messages"): [3, 3, 3, 3],
        (N1, "cassandra.tombstones_per_read_p99"): [1, 1, 310, 1],
    }
    rows = [
        (float(t), node, metric, float(v))
        for (node, metric), values in series.items()
        for t, v in enumerate(values)
    ]
    return pd.DataFrame(rows, columns=["time", "node", "metric", "value"])


def test_server_kpis_from_literal_rows() -> None:
    k = kpis_from_metrics(frame())
    assert k["mutation_stage_pending"] == pytest.approx(45.0)  # 40 + 5: summed over nodes
    assert k["mutation_stage_pending_max"] == 80.0
    assert k["node1.mutation_stage_pending"] == pytest.approx(40.0)
    assert k["native_transport_requests_blocked"] == 62.0  # 60 + 2
    assert k["cassandra_write_latency_p99_ms"] == pytest.approx(5.0)  # the slower node
    assert k["key_cache_hit_pct"] == pytest.approx(90.0)  # (85 + 95) / 2
    assert k["dropped_messages"] == 7.0
    assert k["tombstones_per_read_p99"] == 310.0
    assert k["read_stage_pending"] is None  # never sampled: unknown, not 0


@pytest.mark.parametrize("pool", KEY_STAGES)
def test_every_key_stage_has_catalogued_kpis(pool: str) -> None:
    for suffix in ("_pending", "_pending_max", "_blocked"):
        assert kpi_spec(stage_kpi(pool) + suffix).unit == "tasks"


def test_stage_kpi_names() -> None:
    assert stage_kpi("Native-Transport-Requests") == "native_transport_requests"
    assert stage_kpi("MemtablePostFlush") == "memtable_post_flush"


def _rows(series: dict[tuple[str, str], list[float]]) -> pd.DataFrame:
    rows = [
        (float(t), node, metric, float(v))
        for (node, metric), values in series.items()
        for t, v in enumerate(values)
    ]
    return pd.DataFrame(rows, columns=["time", "node", "metric", "value"])


WORKLOAD, IDLE = "keyspace1.standard1", "keyspace1.counter1"


def table_frame() -> pd.DataFrame:
    """keyspace1.standard1 takes 300 + 200 writes and 60 reads over the window; counter1,
    idle but for 10 reads, keeps an old, slower read latency (a decaying reservoir holds it)."""
    return _rows(
        {
            (N1, f"cassandra.table_writes/{WORKLOAD}"): [1000, 1100, 1200, 1300],
            (N2, f"cassandra.table_writes/{WORKLOAD}"): [500, 500, 600, 700],
            (N1, f"cassandra.table_reads/{WORKLOAD}"): [0, 20, 40, 60],
            (N1, f"cassandra.table_reads/{IDLE}"): [5000, 5000, 5010, 5010],
            (N1, f"cassandra.table_read_latency_p99_ms/{WORKLOAD}"): [1.0, 2.0, 3.0, 2.0],
            (N2, f"cassandra.table_read_latency_p99_ms/{WORKLOAD}"): [0.5, 0.5, 0.5, 0.5],
            (N1, f"cassandra.table_read_latency_p99_ms/{IDLE}"): [90.0, 90.0, 90.0, 90.0],
            (N1, f"cassandra.table_write_latency_p50_ms/{WORKLOAD}"): [0.02, 0.04, 0.02, 0.04],
            (N1, f"cassandra.table_sstables_per_read_mean/{WORKLOAD}"): [1.0, 1.5, 2.0, 1.5],
            (N2, f"cassandra.table_sstables_per_read_mean/{WORKLOAD}"): [3.0, 3.0, 3.0, 3.0],
            (N1, f"cassandra.table_sstables_per_read_p99/{WORKLOAD}"): [2, 4, 3, 2],
            (N1, "cassandra.read_latency_p99_ms"): [4.0, 4.0, 4.0, 4.0],
        }
    )


def test_the_workload_table_is_the_one_with_the_most_local_requests() -> None:
    from casslab.analysis.kpis import busiest_table

    assert busiest_table(table_frame()) == WORKLOAD  # 560 requests against 10
    assert busiest_table(frame()) is None


def test_table_kpis_of_the_workload_table_beside_the_coordinators() -> None:
    k = kpis_from_metrics(table_frame())
    assert k["table_read_latency_p99_ms"] == pytest.approx(2.0)  # node 1's mean, the larger
    assert k["cassandra_read_latency_p99_ms"] == pytest.approx(4.0)  # the coordinator's
    assert k["table_write_latency_p50_ms"] == pytest.approx(0.03)
    assert k["table_write_latency_p99_ms"] is None  # not sampled: unknown
    assert k["table_sstables_per_read_mean"] == pytest.approx(3.0)  # node 2's, the larger
    assert k["table_sstables_per_read_p99"] == 4.0
    untouched = kpis_from_metrics(frame())
    assert untouched["table_read_latency_p99_ms"] is None
    for name in ("table_read_latency_p99_ms", "table_sstables_per_read_p99"):
        assert kpi_spec(name).unit in ("ms", "sstables")
