"""Catalogue entries of what Cassandra measured of itself: every thread-pool stage (the
``nodetool tpstats`` view), its caches' hit rates, tombstones and rows per read, the
coordinator's latency percentiles and the messages it dropped, by verb.

Cheapest path first: the stages, caches and per-read histograms come from the
``system_views`` virtual tables the CQL sampler already queries every second (one small
query each, no JMX needed, any cluster); the latency percentiles and dropped messages by
verb are not in any virtual table of Cassandra 5.0, so they ride on the JMX sampler's
existing polls (extra attributes of MBeans it already reads, no extra round trip). The
per-table figures are the Table MBeans beside the LiveSSTableCount the JMX sampler already
reads for every user table (SSTables per read is in no virtual table).
"""

from __future__ import annotations

from casslab.metrics.metric_entry import Metric, MetricKind, MetricSource, entry

_G, _C, _R = MetricKind.GAUGE, MetricKind.COUNTER, MetricKind.RATE
_CQL, _JMX = MetricSource.CQL, MetricSource.JMX

_POOL = (
    " (system_views.thread_pools, as nodetool tpstats shows it); one metric per pool, its "
    "name ending in /<pool>, e.g. /MutationStage, /Native-Transport-Requests."
)

#: ``(JMX attribute of ClientRequest Latency, metric suffix)``: Cassandra's own recent
#: percentiles (its decaying reservoir), in microseconds on the MBean.
LATENCY_PERCENTILES = (
    ("50thPercentile", "p50"),
    ("99thPercentile", "p99"),
    ("999thPercentile", "p999"),
)


def _latency(op: str, attribute: str, suffix: str) -> Metric:
    return entry(
        f"cassandra.{op}_latency_{suffix}_ms",
        "ms",
        _G,
        _JMX,
        f"Coordinator {op} latency, {suffix} as Cassandra measures it (ClientRequest "
        f"{op.capitalize()} Latency {attribute}: a decaying reservoir weighted to the last "
        "minutes, all keyspaces).",
    )


_TABLE = " of one user table; the metric name ends in /<keyspace>.<table>."


def _table_latency(op: str, attribute: str, suffix: str) -> Metric:
    return entry(
        f"cassandra.table_{op}_latency_{suffix}_ms",
        "ms",
        _G,
        _JMX,
        f"Local {op} latency, {suffix} as Cassandra measures it on the replica (Table "
        f"{op.capitalize()}Latency {attribute}: a decaying reservoir)" + _TABLE,
    )


#: Per-table families (their recorded names end in ``/<keyspace>.<table>``).
TABLE_METRICS: tuple[Metric, ...] = (
    *(
        entry(
            f"cassandra.table_{op}s",
            f"{op}s",
            _C,
            _JMX,
            f"Local {op}s since the node started (Table {op.capitalize()}Latency Count)" + _TABLE,
        )
        for op in ("read", "write")
    ),
    *(
        _table_latency(op, attr, suffix)
        for op in ("read", "write")
        for attr, suffix in LATENCY_PERCENTILES[:2]
    ),
    entry(
        "cassandra.table_sstables_per_read_mean",
        "sstables",
        _G,
        _JMX,
        "SSTables a local read touched, mean (Table SSTablesPerReadHistogram Mean, a "
        "decaying reservoir)" + _TABLE,
    ),
    entry(
        "cassandra.table_sstables_per_read_p99",
        "sstables",
        _G,
        _JMX,
        "SSTables a local read touched, 99th percentile (Table SSTablesPerReadHistogram "
        "99thPercentile)" + _TABLE,
    ),
)

SERVER_METRICS: tuple[Metric, ...] = (
    entry("cassandra.stage_active", "tasks", _G, _CQL, "Tasks running in a pool" + _POOL),
    entry("cassandra.stage_pending", "tasks", _G, _CQL, "Tasks queued in a pool" + _POOL),
    entry(
        "cassandra.stage_blocked",
        "tasks",
        _G,
        _CQL,
        "Tasks blocked because the pool's queue was full" + _POOL,
    ),
    entry(
        "cassandra.stage_blocked_all_time",
        "tasks",
        _C,
        _CQL,
        "Tasks ever blocked on the pool's full queue since the node started" + _POOL,
    ),
    entry(
        "cassandra.stage_completed_per_s",
        "1/s",
        _R,
        _CQL,
        "Tasks the pool completed per second (diff of completed_tasks)" + _POOL,
    ),
    entry(
        "cassandra.key_cache_hit_pct",
        "%",
        _G,
        _CQL,
        "Key-cache hits over the interval, % of its requests (diff of hit_count / diff of "
        "request_count of system_views.caches 'keys'); absent when there was no request.",
    ),
    entry(
        "cassandra.chunk_cache_hit_pct",
        "%",
        _G,
        _CQL,
        "Chunk-cache hits over the interval, % of its requests (system_views.caches "
        "'chunks'); absent when there was no request or the chunk cache is off.",
    ),
    entry(
        "cassandra.tombstones_per_read_p99",
        "tombstones",
        _G,
        _CQL,
        "Tombstones scanned per local read, 99th percentile, largest over user tables "
        "(system_views.tombstones_per_read p99th: Cassandra's decaying histogram).",
    ),
    entry(
        "cassandra.rows_per_read_p99",
        "rows",
        _G,
        _CQL,
        "Live rows read per local read, 99th percentile, largest over user tables "
        "(system_views.rows_per_read p99th).",
    ),
    *(
        _latency(op, attr, suffix)
        for op in ("read", "write")
        for attr, suffix in LATENCY_PERCENTILES
    ),
    entry(
        "cassandra.dropped_messages_by_verb",
        "messages",
        _C,
        _JMX,
        "Messages of one verb dropped since the node started (MessagingService "
        "DroppedMessages, read every 10 s); one metric per verb that dropped any, its name "
        "ending in /<verb>, e.g. /MUTATION_REQ.",
    ),
    *TABLE_METRICS,
)

#: Families whose recorded names end in ``/<pool>`` and ``/<verb>``.
PER_STAGE_FAMILIES = frozenset(
    m.name for m in SERVER_METRICS if m.name.startswith("cassandra.stage_")
)
PER_VERB_FAMILIES = frozenset({"cassandra.dropped_messages_by_verb"})
