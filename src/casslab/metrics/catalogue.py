"""The metric catalogue: one entry per metric casslab samples.

Every sampler emits only names listed here (a test checks it), and ``docs/metrics.md`` is
generated from this list (``python -m casslab.metrics > docs/metrics.md``; a test
checks the checked-in file equals :func:`casslab.metrics.catalogue_doc.render_markdown`).

Kinds:

* ``gauge``   -- the value at the sampling instant (memory in use, tasks pending).
* ``counter`` -- a cumulative, non-decreasing total since the source started (a JVM restart
  resets it); diff two samples to get the amount in between.
* ``rate``    -- an amount per second over the last sampling interval, computed by casslab
  from two consecutive counter readings (the first sample of a source has no rate).
"""

from __future__ import annotations

from casslab.metrics.catalogue_server import SERVER_METRICS
from casslab.metrics.metric_entry import MEMBER_SEPARATOR
from casslab.metrics.metric_entry import Metric as Metric
from casslab.metrics.metric_entry import MetricKind as MetricKind
from casslab.metrics.metric_entry import MetricSource as MetricSource
from casslab.metrics.metric_entry import entry as _m

_G, _C, _R = MetricKind.GAUGE, MetricKind.COUNTER, MetricKind.RATE
_HOST, _PROC, _CG = MetricSource.HOST, MetricSource.PROCESS, MetricSource.CGROUP
_NET = MetricSource.NETNS
_CQL, _JMX, _ENG = MetricSource.CQL, MetricSource.JMX, MetricSource.ENGINE

CATALOGUE: tuple[Metric, ...] = (
    # --- host (the machine that holds the node's data directory) ---
    _m("host.cpu_user_pct", "%", _G, _HOST, "CPU time in user mode (incl. nice), % of all CPUs."),
    _m("host.cpu_system_pct", "%", _G, _HOST, "CPU time in kernel mode (incl. irq, softirq), %."),
    _m("host.cpu_idle_pct", "%", _G, _HOST, "CPU time idle, % of all CPUs."),
    _m("host.cpu_iowait_pct", "%", _G, _HOST, "CPU time idle while waiting for I/O, %."),
    _m("host.cpu_steal_pct", "%", _G, _HOST, "CPU time stolen by the hypervisor, %."),
    _m("host.cpu_busy_pct", "%", _G, _HOST, "100 - idle - iowait: CPU time doing work, %."),
    _m(
        "host.cpu_busy_core_pct",
        "%",
        _G,
        _HOST,
        "CPU time the host used, % of ONE core (200 = two cores busy), the unit of "
        "process.cpu_pct and engine.cpu_pct: CPUs x wall time - idle - iowait - steal. "
        "Higher than host.cpu_busy_pct x CPUs under a bursty load: /proc/stat samples user "
        "and system time at ticks, and a tickless kernel skips ticks.",
    ),
    _m("host.load_1m", "tasks", _G, _HOST, "Load average over one minute (/proc/loadavg)."),
    _m("host.memory_used_bytes", "B", _G, _HOST, "Memory in use: total - available."),
    _m("host.memory_cached_bytes", "B", _G, _HOST, "Page cache (Cached in /proc/meminfo)."),
    _m("host.memory_available_bytes", "B", _G, _HOST, "MemAvailable: memory for new work."),
    _m(
        "host.disk_used_pct",
        "%",
        _G,
        _HOST,
        "Used space of the filesystem holding the data directory (as df shows it).",
    ),
    _m(
        "host.disk_read_bytes_per_s",
        "B/s",
        _R,
        _HOST,
        "Bytes read per second from the block device holding the data directory.",
    ),
    _m(
        "host.disk_write_bytes_per_s",
        "B/s",
        _R,
        _HOST,
        "Bytes written per second to that device (iostat kB_wrtn/s x 1024).",
    ),
    _m("host.disk_reads_per_s", "1/s", _R, _HOST, "Read requests completed per second (r/s)."),
    _m("host.disk_writes_per_s", "1/s", _R, _HOST, "Write requests completed per second (w/s)."),
    _m(
        "host.disk_await_ms",
        "ms",
        _G,
        _HOST,
        "Mean time of the I/O requests completed in the interval (iostat await); "
        "0 when none completed.",
    ),
    _m(
        "host.disk_util_pct",
        "%",
        _G,
        _HOST,
        "Share of the interval the device had I/O in flight (iostat %util).",
    ),
    _m("host.net_rx_bytes_per_s", "B/s", _R, _HOST, "Bytes received per second, all interfaces."),
    _m("host.net_tx_bytes_per_s", "B/s", _R, _HOST, "Bytes sent per second, all interfaces."),
    # --- the node's process (the Cassandra JVM) ---
    _m(
        "process.cpu_pct",
        "%",
        _G,
        _PROC,
        "CPU time of the node's JVM (user + system) over the interval, % of ONE core "
        "(can exceed 100).",
    ),
    _m(
        "process.cpu_user_pct",
        "%",
        _G,
        _PROC,
        "CPU time of the node's JVM in user mode over the interval, % of ONE core.",
    ),
    _m(
        "process.cpu_system_pct",
        "%",
        _G,
        _PROC,
        "CPU time of the node's JVM in kernel mode over the interval, % of ONE core.",
    ),
    _m("process.rss_bytes", "B", _G, _PROC, "Resident set size of the node's JVM."),
    _m("process.threads", "threads", _G, _PROC, "Number of threads of the node's JVM."),
    _m(
        "process.read_bytes_per_s",
        "B/s",
        _R,
        _PROC,
        "Bytes the JVM caused to be read from storage per second (/proc/PID/io read_bytes).",
    ),
    _m(
        "process.write_bytes_per_s",
        "B/s",
        _R,
        _PROC,
        "Bytes the JVM caused to be written to storage per second (/proc/PID/io write_bytes).",
    ),
    # --- the node's cgroup, when it runs in one (what `docker stats` shows) ---
    _m(
        "cgroup.cpu_usage_pct",
        "%",
        _G,
        _CG,
        "CPU time of the cgroup over the interval, % of ONE core (cpuacct.usage / cpu.stat).",
    ),
    _m(
        "cgroup.cpu_throttled_s",
        "s",
        _C,
        _CG,
        "Total time the cgroup was throttled by its CPU quota (cpu.stat throttled_time).",
    ),
    _m(
        "cgroup.memory_usage_bytes",
        "B",
        _G,
        _CG,
        "Memory charged to the cgroup (memory.usage_in_bytes / memory.current).",
    ),
    _m(
        "cgroup.cpu_throttled_pct",
        "%",
        _G,
        _CG,
        "Time the cgroup was throttled by its CPU quota over the interval, % of the interval, "
        "summed over CPUs (diff of cpu.stat throttled_time (v1) / throttled_usec (v2)).",
    ),
    _m(
        "cgroup.cpu_throttled_periods_pct",
        "%",
        _G,
        _CG,
        "Share of the CPU quota periods of the interval in which the cgroup was throttled "
        "(diff of cpu.stat nr_throttled / diff of nr_periods); 0 when no period ran "
        "(no quota, or idle).",
    ),
    _m(
        "cgroup.cpu_limit_cpus",
        "CPUs",
        _G,
        _CG,
        "CPUs the cgroup's own CPU quota allows (cpu.cfs_quota_us / cpu.cfs_period_us (v1), "
        "cpu.max (v2): 0.5 is half a CPU), what cgroup.cpu_usage_pct is judged against; "
        "absent when there is none.",
    ),
    _m(
        "cgroup.memory_limit_bytes",
        "B",
        _G,
        _CG,
        "Memory limit of the cgroup (memory.limit_in_bytes (v1) / memory.max (v2)); "
        "absent when there is none.",
    ),
    _m(
        "cgroup.memory_cache_bytes",
        "B",
        _G,
        _CG,
        "Page cache charged to the cgroup (memory.stat total_cache (v1) / file (v2)).",
    ),
    _m(
        "cgroup.memory_rss_bytes",
        "B",
        _G,
        _CG,
        "Anonymous memory of the cgroup: heap, stacks, not the page cache "
        "(memory.stat total_rss (v1) / anon (v2)).",
    ),
    _m(
        "cgroup.block_read_bytes_per_s",
        "B/s",
        _R,
        _CG,
        "Bytes the cgroup read from block devices per second, all devices "
        "(Read of blkio.throttle.io_service_bytes (v1) / rbytes of io.stat (v2)).",
    ),
    _m(
        "cgroup.block_write_bytes_per_s",
        "B/s",
        _R,
        _CG,
        "Bytes the cgroup wrote to block devices per second, all devices "
        "(Write of blkio.throttle.io_service_bytes (v1) / wbytes of io.stat (v2)). v1 has "
        "no cgroup writeback: pages the kernel's flusher threads write back count in the "
        "root cgroup, so v1 shows direct and fsync-driven writes only; and newer kernels "
        "count v1 I/O only where a blkio.throttle rule is set: on v1 this metric is "
        "recorded only for a cgroup with one (--io-read/--io-write), never as a false 0.",
    ),
    _m(
        "cgroup.pids",
        "tasks",
        _G,
        _CG,
        "Tasks (threads) in the cgroup, as docker stats PIDS (pids.current; without the "
        "pids controller the lines of tasks (v1) / cgroup.threads (v2)).",
    ),
    # --- the node's network namespace, when it has one (the host end of its veth pair) ---
    _m(
        "netns.rx_bytes_per_s",
        "B/s",
        _R,
        _NET,
        "Bytes per second the node received through its veth pair "
        "(statistics/tx_bytes of the host end in /sys/class/net, read on the host).",
    ),
    _m(
        "netns.tx_bytes_per_s",
        "B/s",
        _R,
        _NET,
        "Bytes per second the node sent through its veth pair "
        "(statistics/rx_bytes of the host end in /sys/class/net, read on the host).",
    ),
    # --- Cassandra over CQL (system_views virtual tables: works for any cluster) ---
    _m(
        "cassandra.read_requests_per_s",
        "1/s",
        _R,
        _CQL,
        "Coordinator reads per second on user tables "
        "(diff of system_views.coordinator_read_latency count).",
    ),
    _m(
        "cassandra.write_requests_per_s",
        "1/s",
        _R,
        _CQL,
        "Coordinator writes per second on user tables "
        "(diff of system_views.coordinator_write_latency count).",
    ),
    _m(
        "cassandra.compactions_running",
        "tasks",
        _G,
        _CQL,
        "Compactions in progress (rows of system_views.sstable_tasks of kind compaction).",
    ),
    _m(
        "clock.offset_ms",
        "ms",
        _G,
        _CQL,
        "The node's clock minus casslab's: the NTP estimate (node time minus the midpoint "
        "of send and receive) of the quickest of three `toUnixTimestamp(now())` queries "
        "pinned to the node; the clock its server-side write timestamps come from.",
    ),
    _m(
        "clock.delay_ms",
        "ms",
        _G,
        _CQL,
        "Round trip of the query that gave clock.offset_ms (the quickest of three): the "
        "offset is known to about half of it plus 0.5 ms.",
    ),
    _m(
        "cassandra.compactions_completed",
        "tasks",
        _C,
        _CQL,
        "Tasks completed by the CompactionExecutor thread pool (system_views.thread_pools).",
    ),
    _m(
        "cassandra.memtable_flushes",
        "flushes",
        _C,
        _CQL,
        "Memtable flushes completed "
        "(MemtablePostFlush completed tasks, system_views.thread_pools).",
    ),
    _m(
        "cassandra.hints_pending",
        "files",
        _G,
        _CQL,
        "Hint files waiting for delivery (sum of system_views.pending_hints files; every 5 s).",
    ),
    # --- Cassandra over JMX (local nodes; what CQL does not expose) ---
    _m(
        "cassandra.read_latency_mean_ms",
        "ms",
        _G,
        _JMX,
        "Mean coordinator read latency over the interval "
        "(diff of ClientRequest Read TotalLatency / diff of Latency count); "
        "absent when no reads completed.",
    ),
    _m(
        "cassandra.write_latency_mean_ms",
        "ms",
        _G,
        _JMX,
        "Mean coordinator write latency over the interval (ClientRequest Write); "
        "absent when no writes completed.",
    ),
    _m(
        "cassandra.compactions_pending",
        "tasks",
        _G,
        _JMX,
        "Compactions the strategies estimate are needed (Compaction PendingTasks, "
        "as nodetool compactionstats shows); without JMX: the CompactionExecutor queue.",
    ),
    _m(
        "cassandra.compaction_count_total",
        "compactions",
        _C,
        _JMX,
        "Compactions completed since the node started (Compaction TotalCompactionsCompleted); "
        "without JMX: user-table rows of system.compaction_history since recording began "
        "(read every 30 s).",
    ),
    _m(
        "cassandra.bytes_compacted",
        "B",
        _C,
        _JMX,
        "Bytes compacted since the node started (Compaction BytesCompacted); without JMX: "
        "bytes_in of system.compaction_history rows since recording began (every 30 s).",
    ),
    _m(
        "cassandra.sstables",
        "sstables",
        _G,
        _JMX,
        "Live SSTables over all user tables (sum of Table LiveSSTableCount).",
    ),
    _m(
        "cassandra.live_disk_bytes",
        "B",
        _G,
        _JMX,
        "Disk space of the live SSTables of user tables (sum of Table LiveDiskSpaceUsed); "
        "without JMX: system_views.disk_usage (MiB resolution, every 5 s).",
    ),
    _m(
        "cassandra.table_sstables",
        "sstables",
        _G,
        _JMX,
        "Live SSTables of one user table (Table LiveSSTableCount); the metric name ends in "
        "/<keyspace>.<table>, e.g. cassandra.table_sstables/keyspace1.standard1.",
    ),
    _m(
        "cassandra.table_live_disk_bytes",
        "B",
        _G,
        _JMX,
        "Disk space of the live SSTables of one user table (Table LiveDiskSpaceUsed); the "
        "metric name ends in /<keyspace>.<table>.",
    ),
    _m(
        "cassandra.dropped_messages",
        "messages",
        _C,
        _JMX,
        "Messages dropped since the node started, all verbs (MessagingService "
        "DroppedMessages summed over verbs, as nodetool tpstats shows them; read every 10 s).",
    ),
    _m(
        "cassandra.gc_pauses",
        "collections",
        _C,
        _JMX,
        "Stop-the-world garbage collections since the JVM started (sum of GarbageCollector "
        "CollectionCount, concurrent-cycle collectors left out).",
    ),
    _m(
        "cassandra.gc_pause_ms",
        "ms",
        _C,
        _JMX,
        "Time spent in stop-the-world garbage collection since the JVM started (sum of "
        "CollectionTime; collectors that count concurrent cycles, such as G1 Concurrent GC "
        "or ZGC Cycles, are left out).",
    ),
    _m(
        "cassandra.hints_written",
        "hints",
        _C,
        _JMX,
        "Hints this node wrote as coordinator since it started (Storage TotalHints).",
    ),
    _m(
        "cassandra.hints_replayed",
        "hints",
        _C,
        _JMX,
        "Hints this node delivered since it started (HintsService HintsSucceeded).",
    ),
    # --- the load engine's own process ---
    _m(
        "engine.cpu_pct",
        "%",
        _G,
        _ENG,
        "CPU time of the load engine process (user + system) over the interval, % of ONE core.",
    ),
    _m(
        "engine.cpu_user_pct",
        "%",
        _G,
        _ENG,
        "CPU time of the load engine process in user mode over the interval, % of ONE core.",
    ),
    _m(
        "engine.cpu_system_pct",
        "%",
        _G,
        _ENG,
        "CPU time of the load engine process in kernel mode over the interval, % of ONE core.",
    ),
    _m("engine.rss_bytes", "B", _G, _ENG, "Resident set size of the load engine process."),
    *SERVER_METRICS,
)

_BY_NAME: dict[str, Metric] = {m.name: m for m in CATALOGUE}

#: Node label of the engine's rows (the engine is not a Cassandra node).
ENGINE_NODE = "engine"


#: Per-table metrics carry their table after this separator: ``<family>/<keyspace>.<table>``.
TABLE_SEPARATOR = MEMBER_SEPARATOR


def family(name: str) -> str:
    """The catalogue name of a recorded metric: ``cassandra.table_sstables/ks.t`` ->
    ``cassandra.table_sstables``; other names are their own family."""
    return name.split(TABLE_SEPARATOR, 1)[0]


def per_table(name: str, keyspace: str, table: str) -> str:
    """The recorded name of a per-table metric of ``keyspace.table``."""
    return f"{name}{TABLE_SEPARATOR}{keyspace}.{table}"


def metric(name: str) -> Metric:
    """The catalogue entry of ``name`` (a per-table name maps to its family); ``KeyError``
    when there is none."""
    return _BY_NAME[family(name)]


def names() -> frozenset[str]:
    """Every metric name in the catalogue."""
    return frozenset(_BY_NAME)
