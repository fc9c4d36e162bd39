"""The one table mapping sampler metrics to trial KPIs: :data:`METRIC_RULES`.

Each :class:`MetricRule` names the metrics it reads (``casslab.metrics.catalogue``
names), how one node's samples in the window become one number (:class:`Reduction`) and
how the nodes' numbers become the trial's KPI (:class:`AcrossNodes`). Adjust it here when
the catalogue changes; every KPI it gives is in
:data:`casslab.analysis.kpi_catalogue.KPI_CATALOGUE`, with ``per_node`` alike (a test
checks both). :func:`casslab.analysis.kpis.kpis_from_metrics` applies the rules.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from casslab.analysis.kpi_server import KEY_STAGES, PERCENTILES, TABLE_PERCENTILES, stage_kpi
from casslab.record import Record


class Reduction(StrEnum):
    """How the samples of one node in the window become one number."""

    COUNTER_DELTA = "counter_delta"  # increase over the window, counter resets handled
    COUNTER_RATE = "counter_rate"  # increase / seconds between first and last sample
    GAUGE_MEAN = "gauge_mean"  # mean of the samples
    GAUGE_MAX = "gauge_max"  # largest sample
    GAUGE_ABS_MEAN = "gauge_abs_mean"  # mean of the samples' magnitudes (e.g. clock offsets)
    GAUGE_CHANGE = "gauge_change"  # mean of the last quarter - mean of the first quarter


class AcrossNodes(StrEnum):
    """How the per-node numbers become the trial's KPI."""

    SUM = "sum"
    MEAN = "mean"
    MAX = "max"


class MetricRule(Record):
    """One KPI from one sampler metric:
    ``kpi = across(reduce(node samples)) * scale - sum(minus)``.

    ``metrics`` lists candidate metric names in order of preference: the first one with a
    sample in the window is used (e.g. the JMX counter, else the CQL one). ``per_node``
    also gives ``node<N>.<kpi>`` for each node, ``reduce(node samples) * scale``.
    ``minus`` names KPIs of earlier rules subtracted from the result (the KPI is ``None``
    when one of them is).
    """

    kpi: str
    metrics: tuple[str, ...] = Field(min_length=1)
    reduction: Reduction
    across_nodes: AcrossNodes
    scale: float = 1.0
    per_node: bool = False
    minus: tuple[str, ...] = ()


def _stage_rules(pool: str) -> tuple[MetricRule, ...]:
    stem = stage_kpi(pool)
    return (
        MetricRule(
            kpi=f"{stem}_pending",
            metrics=(f"cassandra.stage_pending/{pool}",),
            reduction=Reduction.GAUGE_MEAN,
            across_nodes=AcrossNodes.SUM,
            per_node=True,
        ),
        MetricRule(
            kpi=f"{stem}_pending_max",
            metrics=(f"cassandra.stage_pending/{pool}",),
            reduction=Reduction.GAUGE_MAX,
            across_nodes=AcrossNodes.MAX,
        ),
        MetricRule(
            kpi=f"{stem}_blocked",
            metrics=(f"cassandra.stage_blocked_all_time/{pool}",),
            reduction=Reduction.COUNTER_DELTA,
            across_nodes=AcrossNodes.SUM,
        ),
    )


def _mean(kpi: str, metric: str, across: AcrossNodes, *, per_node: bool = True) -> MetricRule:
    return MetricRule(
        kpi=kpi,
        metrics=(metric,),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=across,
        per_node=per_node,
    )


#: What Cassandra measured of itself (:mod:`casslab.analysis.kpi_server`).
SERVER_RULES: tuple[MetricRule, ...] = (
    *(rule for pool in KEY_STAGES for rule in _stage_rules(pool)),
    *(
        _mean(f"cassandra_{op}_latency_{p}_ms", f"cassandra.{op}_latency_{p}_ms", AcrossNodes.MAX)
        for op in ("read", "write")
        for p in PERCENTILES
    ),
    MetricRule(
        kpi="dropped_messages",
        metrics=("cassandra.dropped_messages",),
        reduction=Reduction.COUNTER_DELTA,
        across_nodes=AcrossNodes.SUM,
        per_node=True,
    ),
    MetricRule(
        kpi="compactions_pending_growth",
        metrics=("cassandra.compactions_pending",),
        reduction=Reduction.GAUGE_CHANGE,
        across_nodes=AcrossNodes.SUM,
    ),
    *(
        _mean(kpi, metric, AcrossNodes.MAX, per_node=False)
        for kpi, metric in (
            ("iowait_pct", "host.cpu_iowait_pct"),
            ("disk_util_pct", "host.disk_util_pct"),
            ("disk_await_ms", "host.disk_await_ms"),
        )
    ),
    _mean("key_cache_hit_pct", "cassandra.key_cache_hit_pct", AcrossNodes.MEAN),
    _mean("chunk_cache_hit_pct", "cassandra.chunk_cache_hit_pct", AcrossNodes.MEAN),
    *(
        MetricRule(
            kpi=name,
            metrics=(f"cassandra.{name}",),
            reduction=Reduction.GAUGE_MAX,
            across_nodes=AcrossNodes.MAX,
        )
        for name in ("tombstones_per_read_p99", "rows_per_read_p99")
    ),
)

#: The counters that tell which user table the workload used (the most of both, summed).
TABLE_ACTIVITY = ("cassandra.table_reads", "cassandra.table_writes")


def table_rules(table: str) -> tuple[MetricRule, ...]:
    """The KPIs of one user table (``keyspace.table``) from its per-table metrics
    (:data:`casslab.analysis.kpi_server.TABLE_KPIS`); with ``table`` "" they are None."""
    return (
        *(
            _mean(
                f"table_{op}_latency_{p}_ms",
                f"cassandra.table_{op}_latency_{p}_ms/{table}",
                AcrossNodes.MAX,
                per_node=False,
            )
            for op in ("read", "write")
            for p in TABLE_PERCENTILES
        ),
        _mean(
            "table_sstables_per_read_mean",
            f"cassandra.table_sstables_per_read_mean/{table}",
            AcrossNodes.MAX,
            per_node=False,
        ),
        MetricRule(
            kpi="table_sstables_per_read_p99",
            metrics=(f"cassandra.table_sstables_per_read_p99/{table}",),
            reduction=Reduction.GAUGE_MAX,
            across_nodes=AcrossNodes.MAX,
        ),
    )


_MIB = 1.0 / (1024 * 1024)
_MB = 1e-6

METRIC_RULES: tuple[MetricRule, ...] = (
    # host metrics: a local cluster's nodes share one host, so they are averaged
    MetricRule(
        kpi="cpu_busy_pct",
        metrics=("host.cpu_busy_pct",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.MEAN,
    ),
    MetricRule(
        kpi="memory_used_mib",
        metrics=("host.memory_used_bytes",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.MEAN,
        scale=_MIB,
    ),
    MetricRule(
        kpi="memory_used_mib_max",
        metrics=("host.memory_used_bytes",),
        reduction=Reduction.GAUGE_MAX,
        across_nodes=AcrossNodes.MAX,
        scale=_MIB,
    ),
    MetricRule(
        kpi="disk_write_mb_s",
        metrics=("host.disk_write_bytes_per_s",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.MEAN,
        scale=_MB,
    ),
    # Cassandra metrics: each node does its own compaction work, so they are summed
    MetricRule(
        kpi="bytes_compacted",
        metrics=("cassandra.bytes_compacted",),
        reduction=Reduction.COUNTER_DELTA,
        across_nodes=AcrossNodes.SUM,
    ),
    MetricRule(
        kpi="compactions_completed",
        # TotalCompactionsCompleted (JMX) counts compactions; the CQL thread-pool
        # counter counts CompactionExecutor tasks, a fallback without JMX
        metrics=("cassandra.compaction_count_total", "cassandra.compactions_completed"),
        reduction=Reduction.COUNTER_DELTA,
        across_nodes=AcrossNodes.SUM,
    ),
    MetricRule(
        kpi="compactions_pending",
        metrics=("cassandra.compactions_pending",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.SUM,
    ),
    MetricRule(
        kpi="compactions_pending_max",
        metrics=("cassandra.compactions_pending",),
        reduction=Reduction.GAUGE_MAX,
        across_nodes=AcrossNodes.MAX,
    ),
    MetricRule(
        kpi="sstables",
        metrics=("cassandra.sstables",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.SUM,
    ),
    MetricRule(
        kpi="sstables_max",
        metrics=("cassandra.sstables",),
        reduction=Reduction.GAUGE_MAX,
        across_nodes=AcrossNodes.MAX,
    ),
    # CPU by whom, % of ONE core: the host's busy CPU, the nodes' JVMs (summed), the engine,
    # and the rest (the lab itself, the kernel, other tenants of the host)
    MetricRule(
        kpi="host_cpu_pct",
        metrics=("host.cpu_busy_core_pct",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.MEAN,
    ),
    *(
        MetricRule(
            kpi=f"cassandra_cpu{part}_pct",
            metrics=(f"process.cpu{part}_pct",),
            reduction=Reduction.GAUGE_MEAN,
            across_nodes=AcrossNodes.SUM,
            per_node=True,
        )
        for part in ("", "_user", "_system")
    ),
    *(
        MetricRule(
            kpi=f"engine_cpu{part}_pct",
            metrics=(f"engine.cpu{part}_pct",),
            reduction=Reduction.GAUGE_MEAN,
            across_nodes=AcrossNodes.SUM,
        )
        for part in ("", "_user", "_system")
    ),
    MetricRule(
        kpi="other_cpu_pct",
        metrics=("host.cpu_busy_core_pct",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.MEAN,
        minus=("cassandra_cpu_pct", "engine_cpu_pct"),
    ),
    # per-process resources of the nodes (summed, and per node) and of the engine
    MetricRule(
        kpi="gc_pause_ms",
        metrics=("cassandra.gc_pause_ms",),
        reduction=Reduction.COUNTER_DELTA,
        across_nodes=AcrossNodes.SUM,
        per_node=True,
    ),
    MetricRule(
        kpi="cassandra_disk_write_bytes_per_s",
        metrics=("process.write_bytes_per_s",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.SUM,
        per_node=True,
    ),
    MetricRule(
        kpi="cassandra_rss_bytes",
        metrics=("process.rss_bytes",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.SUM,
        per_node=True,
    ),
    MetricRule(
        kpi="engine_rss_bytes",
        metrics=("engine.rss_bytes",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.SUM,
    ),
    # each node's clock against casslab's (the CQL sampler's NTP estimate): how far off,
    # whichever way, and how long the probe took (the offset's uncertainty)
    MetricRule(
        kpi="clock_offset_abs_ms",
        metrics=("clock.offset_ms",),
        reduction=Reduction.GAUGE_ABS_MEAN,
        across_nodes=AcrossNodes.MEAN,
        per_node=True,
    ),
    MetricRule(
        kpi="clock_delay_ms",
        metrics=("clock.delay_ms",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.MEAN,
        per_node=True,
    ),
    # the nodes' containers (cgroup and network namespace; the isolated backend): the
    # columns of `docker stats`, summed over nodes (shares and peaks: the largest node)
    MetricRule(
        kpi="container_cpu_pct",
        metrics=("cgroup.cpu_usage_pct",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.SUM,
        per_node=True,
    ),
    MetricRule(
        kpi="container_throttled_periods_pct",
        metrics=("cgroup.cpu_throttled_periods_pct",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.MAX,
        per_node=True,
    ),
    MetricRule(
        kpi="container_cpu_limit_cpus",
        metrics=("cgroup.cpu_limit_cpus",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.MAX,
        per_node=True,
    ),
    MetricRule(
        kpi="container_memory_bytes_max",
        metrics=("cgroup.memory_usage_bytes",),
        reduction=Reduction.GAUGE_MAX,
        across_nodes=AcrossNodes.MAX,
        per_node=True,
    ),
    MetricRule(
        kpi="container_memory_limit_bytes",
        metrics=("cgroup.memory_limit_bytes",),
        reduction=Reduction.GAUGE_MAX,
        across_nodes=AcrossNodes.MAX,
        per_node=True,
    ),
    *(
        MetricRule(
            kpi=f"container_net_{way}_bytes_per_s",
            metrics=(f"netns.{way}_bytes_per_s",),
            reduction=Reduction.GAUGE_MEAN,
            across_nodes=AcrossNodes.SUM,
            per_node=True,
        )
        for way in ("rx", "tx")
    ),
    MetricRule(
        kpi="container_block_write_bytes_per_s",
        metrics=("cgroup.block_write_bytes_per_s",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.SUM,
        per_node=True,
    ),
    MetricRule(
        kpi="container_pids",
        metrics=("cgroup.pids",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.SUM,
        per_node=True,
    ),
    *SERVER_RULES,
)
