"""The KPI catalogue: for each KPI name its unit, whether a larger value is better, worse,
or neither, and what it means (:data:`KPI_CATALOGUE`, looked up by :func:`kpi_spec`).

Names say the unit (``latency_p99_ms``, ``disk_write_mb_s``); a per-operation KPI is
``<operation>.<kpi>`` (``read.latency_p99_ms``) for the operation names the engine reports,
a per-node KPI ``node<N>.<kpi>`` (``node2.cassandra_cpu_pct``).
"""

from __future__ import annotations

import re

from casslab.analysis.kpi_load import LOAD_KPIS
from casslab.analysis.kpi_recall import RECALL_KPIS
from casslab.analysis.kpi_record import Direction as Direction
from casslab.analysis.kpi_record import KpiSpec as KpiSpec
from casslab.analysis.kpi_record import spec as _spec
from casslab.analysis.kpi_server import SERVER_KPIS
from casslab.errors import AnalysisError

NODE_KPI = re.compile(r"node([1-9][0-9]*)")
"""The prefix of a per-node KPI, ``node<N>.<kpi>``: N counts the nodes from 1 in address
order (node N of a local cluster is the one casslab numbered N)."""


def node_kpi(number: int, kpi: str) -> str:
    """The name of KPI ``kpi`` of node ``number``: ``node2.cassandra_cpu_pct``."""
    return f"node{number}.{kpi}"


_CORE = "% of ONE core (200 = two cores busy, as top shows a process)"


_H = Direction.HIGHER_IS_BETTER
_L = Direction.LOWER_IS_BETTER
_N = Direction.NEUTRAL

KPI_CATALOGUE: dict[str, KpiSpec] = {
    spec.name: spec
    for spec in (
        _spec("op_rate", "ops/s", _H, "operations completed per second", per_op=True),
        _spec(
            "latency_mean_ms",
            "ms",
            _L,
            "mean response time (from the intended start: includes queueing)",
            per_op=True,
        ),
        _spec("latency_p50_ms", "ms", _L, "median response time", per_op=True),
        _spec("latency_p95_ms", "ms", _L, "95th percentile response time", per_op=True),
        _spec("latency_p99_ms", "ms", _L, "99th percentile response time", per_op=True),
        _spec("latency_p999_ms", "ms", _L, "99.9th percentile response time", per_op=True),
        _spec("latency_max_ms", "ms", _L, "largest response time", per_op=True),
        _spec("errors", "count", _L, "operations that failed after retries", per_op=True),
        _spec(
            "cpu_busy_pct",
            "%",
            _N,
            "CPU busy (not idle, not iowait) share of the host, mean over the window; "
            "a resource, not a goal",
        ),
        _spec("memory_used_mib", "MiB", _N, "memory used on the host, mean over the window"),
        _spec("memory_used_mib_max", "MiB", _N, "memory used on the host, largest sample"),
        _spec("disk_write_mb_s", "MB/s", _N, "disk write throughput, mean over the window"),
        _spec(
            "bytes_compacted",
            "bytes",
            _N,
            "bytes compacted during the window, all nodes; work done, not a goal",
        ),
        _spec(
            "compactions_completed",
            "count",
            _N,
            "compactions completed during the window, all nodes",
        ),
        _spec(
            "compactions_pending",
            "count",
            _N,
            "pending compactions, mean over the window, summed over nodes; a growing "
            "backlog means compaction falls behind",
        ),
        _spec(
            "compactions_pending_max",
            "count",
            _N,
            "pending compactions, largest sample on any node",
        ),
        _spec("sstables", "count", _N, "live SSTables, mean over the window, all nodes"),
        _spec("sstables_max", "count", _N, "live SSTables, largest sample on any node"),
        # CPU by whom, all in % of one core so they add up: host = cassandra + engine + other
        _spec(
            "host_cpu_pct",
            "%",
            _N,
            f"CPU the host used (its processes and kernel: not idle, iowait or steal), "
            f"{_CORE}; mean over the window. Counted from idle time over wall time, so it "
            "adds up with the processes' CPU; cpu_busy_pct is the sar-style tick share",
        ),
        _spec(
            "cassandra_cpu_pct",
            "%",
            _N,
            f"CPU of the Cassandra JVMs (user + system), {_CORE}; mean over the window, "
            "summed over nodes",
            per_node=True,
        ),
        _spec(
            "cassandra_cpu_user_pct",
            "%",
            _N,
            f"CPU of the Cassandra JVMs in user mode, {_CORE}; mean, summed over nodes",
            per_node=True,
        ),
        _spec(
            "cassandra_cpu_system_pct",
            "%",
            _N,
            f"CPU of the Cassandra JVMs in kernel mode, {_CORE}; mean, summed over nodes",
            per_node=True,
        ),
        _spec(
            "engine_cpu_pct",
            "%",
            _N,
            f"CPU of the load engine (user + system), {_CORE}; mean over the window",
        ),
        _spec("engine_cpu_user_pct", "%", _N, f"CPU of the load engine in user mode, {_CORE}"),
        _spec("engine_cpu_system_pct", "%", _N, f"CPU of the load engine in kernel mode, {_CORE}"),
        _spec(
            "other_cpu_pct",
            "%",
            _N,
            f"CPU busy on the host that is neither Cassandra nor the engine, {_CORE}: "
            "host_cpu_pct - cassandra_cpu_pct - engine_cpu_pct (the lab, the kernel, other "
            "tenants); only meaningful when nodes and engine share one host",
        ),
        _spec(
            "gc_pause_ms",
            "ms",
            _N,
            "time the Cassandra JVMs spent in stop-the-world GC pauses during the window, "
            "summed over nodes",
            per_node=True,
        ),
        _spec(
            "cassandra_disk_write_bytes_per_s",
            "B/s",
            _N,
            "bytes the Cassandra JVMs caused to be written to storage per second "
            "(/proc/PID/io write_bytes), mean over the window, summed over nodes; "
            "disk_write_mb_s is the whole device",
            per_node=True,
        ),
        _spec(
            "cassandra_rss_bytes",
            "bytes",
            _N,
            "resident memory of the Cassandra JVMs, mean over the window, summed over nodes",
            per_node=True,
        ),
        _spec("engine_rss_bytes", "bytes", _N, "resident memory of the load engine, mean"),
        # each node's clock against casslab's (NTP estimate over CQL, every second)
        _spec(
            "clock_offset_abs_ms",
            "ms",
            _N,
            "how far a node's clock is from casslab's, either way: mean |clock.offset_ms| "
            "over the window, mean over nodes",
            per_node=True,
        ),
        _spec(
            "clock_delay_ms",
            "ms",
            _N,
            "round trip of the clock probe (the offset is known to about half of it), mean "
            "over the window, mean over nodes",
            per_node=True,
        ),
        # what skewed clocks do (the experiment's lww probe and cluster.clock)
        _spec(
            "lww_lost_pct",
            "%",
            _L,
            "acknowledged updates lost to last-write-wins: keys whose v2, written after v1 "
            "through the skewed node, read back as v1 at ALL (lww probe)",
            share_of=("lww_lost", "lww_acknowledged"),
        ),
        _spec(
            "lww_unacknowledged_pct",
            "%",
            _L,
            "v2 writes of the lww probe that failed (timed out or unavailable)",
        ),
        _spec("lww_lost", "keys", _L, "acknowledged updates lost (lww probe), a count"),
        _spec("lww_acknowledged", "keys", _N, "v2 writes acknowledged (lww probe), a count"),
        _spec(
            "expired_messages",
            "messages",
            _L,
            "internode messages the nodes dropped as expired on arrival (older than their "
            "timeout by the sender's clock), from the measured phase to the end of the lww "
            "probe, summed over nodes (system_views.internode_inbound)",
        ),
        # the read-back of acknowledged writes (verify:,
        # casslab.experiment.steps.verify.verification)
        _spec(
            "lost_writes",
            "keys",
            _L,
            "writes the cluster acknowledged in the measured phase whose key read back no "
            "row afterwards, at the file's verify: consistency level (a count)",
        ),
        _spec(
            "unverified_writes",
            "keys",
            _L,
            "acknowledged writes whose read-back failed after retries: neither found nor "
            "counted as lost (a count)",
        ),
        _spec(
            "verified_writes",
            "keys",
            _N,
            "distinct keys of acknowledged writes read back after the measured phase",
        ),
        # faults on the trial's timeline (faults:, casslab.faults.windows)
        _spec(
            "fault_errors",
            "ops",
            _L,
            "operations that failed while a node was under a fault (from its start until "
            "the node was back), summed over the trial's faults",
        ),
        _spec(
            "fault_unavailable",
            "ops",
            _L,
            "operations that failed as unavailable (the coordinator knew too few replicas "
            "alive for the consistency level) while a node was under a fault, summed over "
            "the trial's faults",
        ),
        _spec(
            "fault_timeouts",
            "ops",
            _L,
            "operations that failed as timeouts (write or read timeouts at the replicas, or "
            "the driver's own request timeout) while a node was under a fault, summed over "
            "the trial's faults",
        ),
        _spec(
            "fault_op_rate",
            "ops/s",
            Direction.HIGHER_IS_BETTER,
            "operations per second completed while nodes were under faults",
        ),
        _spec(
            "fault_recovery_s",
            "s",
            _L,
            "time from a node's return until the load recovered (an interval's op rate within "
            "5% of the 10 s before the fault and its p99 under 1.2x theirs), the longest "
            "over the trial's faults",
        ),
        _spec(
            "fault_detect_s",
            "s",
            _N,
            "time from a fault's start until another node's failure detector marked the node "
            "down (JMX DownEndpointCount), the longest over the trial's faults",
        ),
        _spec(
            "faults_unrecovered",
            "faults",
            _L,
            "faults after which the load did not recover before the measured phase ended",
        ),
        _spec(
            "fault_hints_written",
            "hints",
            _N,
            "hints the nodes wrote as coordinators for replicas that did not answer, from the "
            "timeline's start to its stop, summed over nodes (JMX Storage TotalHints)",
        ),
        _spec(
            "fault_hints_replayed",
            "hints",
            _N,
            "hints the nodes delivered to their replicas once back, from the timeline's start "
            "until its stop and the replay's wait (up to 20 s), summed over nodes (JMX "
            "HintsService HintsSucceeded)",
        ),
        # operations on the trial's timeline (restart, repair, ...: casslab.faults.windows)
        *(
            _spec(name, unit, direction, f"{what}, over the trial's operations")
            for name, unit, direction, what in (
                ("operation_s", "s", _N, "time the operations took, summed"),
                ("operation_errors", "ops", _L, "operations of the load that failed during them"),
                ("operation_unavailable", "ops", _L, "of those, failed as unavailable"),
                ("operation_timeouts", "ops", _L, "of those, failed as timeouts"),
                ("operation_op_rate", "ops/s", _H, "operations per second completed during them"),
                ("operation_p99_ms", "ms", _L, "the highest p99 of a second during one"),
                ("operation_before_p99_ms", "ms", _N, "the median p99 of the 10 s before one"),
                (
                    "operation_recovery_s",
                    "s",
                    _L,
                    "time from an operation's end until the load "
                    "recovered (as fault_recovery_s), the longest",
                ),
                ("operations_failed", "operations", _L, "operations that ended in an error"),
                (
                    "operations_unrecovered",
                    "operations",
                    _L,
                    "operations after which the load "
                    "did not recover before the measured phase ended",
                ),
            )
        ),
        # the nodes' containers (a cgroup and a network namespace each): `docker stats`
        _spec(
            "container_cpu_pct",
            "%",
            _N,
            f"CPU of the nodes' cgroups (the JVM and whatever else runs in them), {_CORE}; "
            "mean over the window, summed over nodes",
            per_node=True,
        ),
        _spec(
            "container_throttled_periods_pct",
            "%",
            _N,
            "share of the CPU quota periods in which a node's cgroup was throttled (0: never, "
            "or no quota), mean over the window, largest over nodes",
            per_node=True,
        ),
        _spec(
            "container_cpu_limit_cpus",
            "CPUs",
            _N,
            "CPUs a node's cgroup quota allows (0.5: half a CPU; not measured when it has "
            "none), mean over the window, largest over nodes: what container_cpu_pct is "
            "judged against",
            per_node=True,
        ),
        _spec(
            "container_memory_bytes_max",
            "bytes",
            _N,
            "memory charged to a node's cgroup (RSS and page cache), largest sample, "
            "largest over nodes",
            per_node=True,
        ),
        _spec(
            "container_memory_limit_bytes",
            "bytes",
            _N,
            "memory limit of a node's cgroup (not measured when it has none), largest over nodes",
            per_node=True,
        ),
        _spec(
            "container_net_rx_bytes_per_s",
            "B/s",
            _N,
            "bytes per second the nodes received through their veth pairs, mean over the "
            "window, summed over nodes",
            per_node=True,
        ),
        _spec(
            "container_net_tx_bytes_per_s",
            "B/s",
            _N,
            "bytes per second the nodes sent through their veth pairs, mean over the "
            "window, summed over nodes",
            per_node=True,
        ),
        _spec(
            "container_block_write_bytes_per_s",
            "B/s",
            _N,
            "bytes per second the nodes' cgroups wrote to block devices, mean over the "
            "window, summed over nodes (cgroup v1: direct and fsync-driven writes only)",
            per_node=True,
        ),
        _spec(
            "container_pids",
            "count",
            _N,
            "tasks (threads) in the nodes' cgroups, mean over the window, summed over nodes",
            per_node=True,
        ),
        *SERVER_KPIS,
        *RECALL_KPIS,
        *LOAD_KPIS,
    )
}


DEFAULT_KPIS = ("op_rate", "latency_mean_ms", "latency_p99_ms", "errors")

CONTAINER_KPIS = (
    "container_cpu_pct",
    "container_throttled_periods_pct",
    "container_cpu_limit_cpus",
    "container_memory_bytes_max",
    "container_memory_limit_bytes",
    "container_net_rx_bytes_per_s",
    "container_net_tx_bytes_per_s",
    "container_block_write_bytes_per_s",
    "container_pids",
)
"""The KPIs of the nodes' cgroups and namespaces (isolated nodes): ``docker stats``."""
"""The KPIs an experiment reports when its file names none."""


_ACROSS_NODES = (", summed over nodes", ", largest over nodes")


def _one_node(help_text: str) -> str:
    """The help of a per-node KPI: its cluster KPI's, without how nodes are combined."""
    for phrase in _ACROSS_NODES:
        help_text = help_text.replace(phrase, "")
    return help_text


def kpi_spec(name: str) -> KpiSpec:
    """The catalogue entry of a KPI name, including per-operation names (``read.op_rate``).

    Raises :class:`~casslab.errors.AnalysisError` naming the KPI and the known names when
    it is not in the catalogue.
    """
    spec = KPI_CATALOGUE.get(name)
    if spec is not None:
        return spec
    operation, _, base = name.rpartition(".")
    base_spec = KPI_CATALOGUE.get(base)
    if operation and base_spec is not None and base_spec.per_operation:
        return KpiSpec(
            name=name,
            unit=base_spec.unit,
            direction=base_spec.direction,
            help=f"{operation} operations: {base_spec.help}",
            per_operation=True,
        )
    node = NODE_KPI.fullmatch(operation)
    if node is not None and base_spec is not None and base_spec.per_node:
        return KpiSpec(
            name=name,
            unit=base_spec.unit,
            direction=base_spec.direction,
            help=f"node {node.group(1)}: {_one_node(base_spec.help)}",
            per_node=True,
        )
    per_op = sorted(s.name for s in KPI_CATALOGUE.values() if s.per_operation)
    per_node = sorted(s.name for s in KPI_CATALOGUE.values() if s.per_node)
    raise AnalysisError(
        f"unknown KPI {name!r}: use one of {sorted(KPI_CATALOGUE)}, '<operation>.<kpi>' "
        f"with <kpi> one of {per_op}, or 'node<N>.<kpi>' with <kpi> one of {per_node}"
    )
