"""The MBeans the JMX sampler reads and what their values mean.

What is asked of the helper (:data:`FAST_QUERIES`, :data:`SLOW_QUERIES`, the MBeans of
:data:`SYSTEM_KEYSPACES` left out), its answer lines parsed into :class:`JmxValue` objects
(:func:`parse_answer`) and those summed into catalogue figures (:func:`summarize`). No I/O:
the helper JVM that answers, and the source that polls it, are :mod:`casslab.metrics.jmx`.
"""

from __future__ import annotations

from dataclasses import dataclass

from casslab.metrics.catalogue import per_table
from casslab.metrics.catalogue_server import LATENCY_PERCENTILES
from casslab.metrics.metric_entry import member_metric
from casslab.metrics.source import SourceUnavailableError

SYSTEM_KEYSPACES = (
    "system",
    "system_schema",
    "system_auth",
    "system_distributed",
    "system_traces",
    "system_views",
    "system_virtual_schema",
    "system_cluster_metadata",
)

_M = "org.apache.cassandra.metrics"
_PERCENTILES = dict(LATENCY_PERCENTILES)
_LATENCY_ATTRIBUTES = ",".join(["Count", *_PERCENTILES])
_TABLE_PERCENTILES = dict(LATENCY_PERCENTILES[:2])  # p50 and p99 of each user table
_TABLE_LATENCY_ATTRIBUTES = ",".join(["Count", *_TABLE_PERCENTILES])
_DROPPED_BY_VERB = "cassandra.dropped_messages_by_verb"
#: Read at every poll: a handful of MBeans (per-table ones for user tables only).
FAST_QUERIES: tuple[tuple[str, str], ...] = (
    (f"{_M}:type=ClientRequest,scope=Read,name=Latency", _LATENCY_ATTRIBUTES),
    (f"{_M}:type=ClientRequest,scope=Read,name=TotalLatency", "Count"),
    (f"{_M}:type=ClientRequest,scope=Write,name=Latency", _LATENCY_ATTRIBUTES),
    (f"{_M}:type=ClientRequest,scope=Write,name=TotalLatency", "Count"),
    (f"{_M}:type=Compaction,name=PendingTasks", "Value"),
    (f"{_M}:type=Compaction,name=TotalCompactionsCompleted", "Count"),
    (f"{_M}:type=Compaction,name=BytesCompacted", "Count"),
    (f"{_M}:type=Table,keyspace=*,scope=*,name=LiveSSTableCount", "Value"),
    (f"{_M}:type=Table,keyspace=*,scope=*,name=LiveDiskSpaceUsed", "Count"),
    (f"{_M}:type=Table,keyspace=*,scope=*,name=ReadLatency", _TABLE_LATENCY_ATTRIBUTES),
    (f"{_M}:type=Table,keyspace=*,scope=*,name=WriteLatency", _TABLE_LATENCY_ATTRIBUTES),
    (f"{_M}:type=Table,keyspace=*,scope=*,name=SSTablesPerReadHistogram", "Mean,99thPercentile"),
    ("java.lang:type=GarbageCollector,name=*", "CollectionCount,CollectionTime"),
    (f"{_M}:type=Storage,name=TotalHints", "Count"),
    (f"{_M}:type=HintsService,name=HintsSucceeded", "Count"),
)
#: Read every ``slow_every`` polls. Dropped messages: MessagingService's DroppedMessages,
#: the count of every verb in one map (summed by the helper), in one round trip; the
#: DroppedMessage MBeans are one per verb (about 90 round trips: 40 ms of CPU a poll).
SLOW_QUERIES: tuple[tuple[str, str], ...] = (
    ("org.apache.cassandra.net:type=MessagingService", "DroppedMessages"),
)


@dataclass(frozen=True)
class JmxValue:
    """One attribute of one MBean."""

    object_name: str
    attribute: str
    value: float


def parse_answer(lines: list[str]) -> list[JmxValue]:
    """The ``V`` lines of one answer; raises SourceUnavailableError for an ``E`` line."""
    out: list[JmxValue] = []
    for line in lines:
        f = line.split("\t")
        if f[0] == "E":
            raise SourceUnavailableError("JMX: " + " ".join(f[1:]))
        if f[0] == "V" and len(f) == 4:
            try:
                out.append(JmxValue(f[1], f[2], float(f[3])))
            except ValueError:
                continue  # a non-numeric attribute value: not one casslab asked for
    return out


def _key(object_name: str, prop: str) -> str | None:
    for part in object_name.split(":", 1)[-1].split(","):
        k, _, v = part.partition("=")
        if k == prop:
            return v
    return None


#: Words in the names of GarbageCollector MBeans whose CollectionTime counts concurrent work
#: (JDK 21's "G1 Concurrent GC", "ZGC Cycles", "Shenandoah Cycles"), not application pauses.
CONCURRENT_COLLECTOR_WORDS = ("Concurrent", "Cycles")


def concurrent_collector(name: str | None) -> bool:
    """True for a collector MBean that reports concurrent cycles rather than pauses."""
    return name is not None and any(w in name for w in CONCURRENT_COLLECTOR_WORDS)


def _table_family(name: str, attribute: str) -> str:
    """The catalogue family of one attribute of a per-table MBean: ``ReadLatency`` Count
    -> ``cassandra.table_reads``, its 99thPercentile (microseconds) ->
    ``cassandra.table_read_latency_p99_ms``; ``SSTablesPerReadHistogram`` Mean ->
    ``cassandra.table_sstables_per_read_mean``."""
    if name == "SSTablesPerReadHistogram":
        return f"cassandra.table_sstables_per_read_{'mean' if attribute == 'Mean' else 'p99'}"
    op = name.removesuffix("Latency").lower()
    if attribute == "Count":
        return f"cassandra.table_{op}s"
    return f"cassandra.table_{op}_latency_{_TABLE_PERCENTILES[attribute]}_ms"


def summarize(values: list[JmxValue]) -> dict[str, float]:
    """Raw JMX values -> cumulative/gauge figures keyed by catalogue name (or by an internal
    ``_``-prefixed name for the latency counters the caller diffs)."""
    out: dict[str, float] = {}

    def add(name: str, v: float) -> None:
        out[name] = out.get(name, 0.0) + v

    for jv in values:
        typ = _key(jv.object_name, "type")
        name = _key(jv.object_name, "name")
        scope = _key(jv.object_name, "scope")
        if typ == "ClientRequest" and scope in ("Read", "Write") and jv.attribute in _PERCENTILES:
            # Cassandra's recent percentile, in microseconds
            out[f"cassandra.{scope.lower()}_latency_{_PERCENTILES[jv.attribute]}_ms"] = (
                jv.value / 1e3
            )
        elif typ == "ClientRequest" and scope in ("Read", "Write"):
            suffix = "total_us" if name == "TotalLatency" else "count"
            add(f"_{scope.lower()}_{suffix}", jv.value)
        elif typ == "Compaction" and name == "PendingTasks":
            add("cassandra.compactions_pending", jv.value)
        elif typ == "Compaction" and name == "TotalCompactionsCompleted":
            add("cassandra.compaction_count_total", jv.value)
        elif typ == "Compaction" and name == "BytesCompacted":
            add("cassandra.bytes_compacted", jv.value)
        elif typ == "Table" and name in ("LiveSSTableCount", "LiveDiskSpaceUsed"):
            total, table = (
                ("cassandra.sstables", "cassandra.table_sstables")
                if name == "LiveSSTableCount"
                else ("cassandra.live_disk_bytes", "cassandra.table_live_disk_bytes")
            )
            add(total, jv.value)
            keyspace = _key(jv.object_name, "keyspace")
            if keyspace is not None and scope is not None:
                add(per_table(table, keyspace, scope), jv.value)
        elif typ == "Table" and name in ("ReadLatency", "WriteLatency", "SSTablesPerReadHistogram"):
            keyspace = _key(jv.object_name, "keyspace")
            if keyspace is not None and scope is not None:
                micros = name != "SSTablesPerReadHistogram" and jv.attribute != "Count"
                value = jv.value / 1e3 if micros else jv.value  # latencies in microseconds
                out[per_table(_table_family(name, jv.attribute), keyspace, scope)] = value
        elif typ == "Storage" and name == "TotalHints":
            add("cassandra.hints_written", jv.value)
        elif typ == "HintsService" and name == "HintsSucceeded":
            add("cassandra.hints_replayed", jv.value)
        elif typ == "MessagingService" and jv.attribute.startswith("DroppedMessages/"):
            add(member_metric(_DROPPED_BY_VERB, jv.attribute.partition("/")[2]), jv.value)
        elif typ == "DroppedMessage" or (
            typ == "MessagingService" and jv.attribute == "DroppedMessages"
        ):
            add("cassandra.dropped_messages", jv.value)
        elif typ == "GarbageCollector" and concurrent_collector(name):
            continue  # its time is a concurrent cycle, not a pause
        elif typ == "GarbageCollector" and jv.attribute == "CollectionCount":
            add("cassandra.gc_pauses", jv.value)
        elif typ == "GarbageCollector" and jv.attribute == "CollectionTime":
            add("cassandra.gc_pause_ms", jv.value)
    if "cassandra.hints_written" in out:  # HintsService's meters exist from a first delivery
        out.setdefault("cassandra.hints_replayed", 0.0)
    return out
