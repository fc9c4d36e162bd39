"""KPIs of what Cassandra measured of itself (specs here; their rules are in
:mod:`casslab.analysis.metric_rules`): each key thread-pool stage's queue and blocked tasks,
its own coordinator latency percentiles, cache hit rates, tombstones and rows per read,
the messages it dropped, and the local latency and SSTables per read of the workload's
table (:data:`TABLE_KPIS`)."""

from __future__ import annotations

import re

from casslab.analysis.kpi_record import Direction, KpiSpec, spec

#: The thread pools a trial reports KPIs of (the sampler records every pool): the
#: request stages, compaction and flushing, and hint delivery.
KEY_STAGES = (
    "MutationStage",
    "ReadStage",
    "Native-Transport-Requests",
    "CompactionExecutor",
    "MemtableFlushWriter",
    "MemtablePostFlush",
    "HintsDispatcher",
)
PERCENTILES = ("p50", "p99", "p999")
TABLE_PERCENTILES = ("p50", "p99")  # what a Table MBean's latency is read at


def stage_kpi(pool: str) -> str:
    """The KPI stem of a pool: ``Native-Transport-Requests`` -> ``native_transport_requests``,
    ``MutationStage`` -> ``mutation_stage``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", pool).replace("-", "_").lower()


_N, _L = Direction.NEUTRAL, Direction.LOWER_IS_BETTER

_WORKLOAD_TABLE = (
    "of the workload's table (the user table with the most local reads and writes over "
    "the window, summed over nodes)"
)

TABLE_KPIS: tuple[KpiSpec, ...] = (
    *(
        spec(
            f"table_{op}_latency_{p}_ms",
            "ms",
            _L,
            f"local {op} latency {p} {_WORKLOAD_TABLE}, as Cassandra measured it on the "
            "replica (Table metrics), mean of its per-second readings, largest over nodes",
        )
        for op in ("read", "write")
        for p in TABLE_PERCENTILES
    ),
    spec(
        "table_sstables_per_read_mean",
        "sstables",
        _L,
        f"SSTables a local read touched, mean, {_WORKLOAD_TABLE}; mean of its per-second "
        "readings, largest over nodes",
    ),
    spec(
        "table_sstables_per_read_p99",
        "sstables",
        _L,
        f"SSTables a local read touched, p99, {_WORKLOAD_TABLE}; largest reading on any node",
    ),
)

SERVER_KPIS: tuple[KpiSpec, ...] = (
    *(
        s
        for pool in KEY_STAGES
        for s in (
            spec(
                f"{stage_kpi(pool)}_pending",
                "tasks",
                _N,
                f"tasks queued in {pool}, mean over the window, summed over nodes",
                per_node=True,
            ),
            spec(
                f"{stage_kpi(pool)}_pending_max",
                "tasks",
                _N,
                f"tasks queued in {pool}, largest sample on any node",
            ),
            spec(
                f"{stage_kpi(pool)}_blocked",
                "tasks",
                _N,
                f"tasks {pool} blocked on its full queue during the window, summed over nodes",
            ),
        )
    ),
    *(
        spec(
            f"cassandra_{op}_latency_{p}_ms",
            "ms",
            _L,
            f"coordinator {op} latency {p} as Cassandra measured it (ClientRequest), mean of "
            "its per-second readings over the window, largest over nodes; the engine's "
            "latency adds the client and the network",
            per_node=True,
        )
        for op in ("read", "write")
        for p in PERCENTILES
    ),
    spec(
        "dropped_messages",
        "messages",
        _L,
        "messages the nodes dropped (all verbs, as nodetool tpstats) during the window, "
        "summed over nodes",
        per_node=True,
    ),
    spec(
        "compactions_pending_growth",
        "count",
        _N,
        "pending compactions at the end of the window minus at its start (means of its "
        "last and first quarters), summed over nodes: a growing backlog",
    ),
    spec("iowait_pct", "%", _N, "share of all CPUs idle waiting for I/O, mean, busiest host"),
    spec("disk_util_pct", "%", _N, "share of time the data device was busy, mean, busiest host"),
    spec("disk_await_ms", "ms", _N, "mean wait of the data device's requests, busiest host"),
    spec(
        "key_cache_hit_pct",
        "%",
        _N,
        "key-cache hits, % of its requests, mean over the window and the nodes",
        per_node=True,
    ),
    spec(
        "chunk_cache_hit_pct",
        "%",
        _N,
        "chunk-cache hits, % of its requests, mean over the window and the nodes",
        per_node=True,
    ),
    spec(
        "tombstones_per_read_p99",
        "tombstones",
        _N,
        "tombstones scanned per read, p99, largest sample of any user table on any node",
    ),
    spec(
        "rows_per_read_p99",
        "rows",
        _N,
        "rows read per read, p99, largest sample of any user table on any node",
    ),
    *TABLE_KPIS,
)
