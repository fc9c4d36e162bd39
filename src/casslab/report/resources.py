"""The report's tables of resources: by process (Cassandra, the load engine, the rest of
the host) and by container (each node's cgroup, the columns of ``docker stats``); and what
Cassandra measured of its own latency, the coordinator's beside the workload table's."""

from __future__ import annotations

from collections.abc import Sequence

from casslab.analysis import TrialKpis, cell_stats
from casslab.analysis.kpi_catalogue import CONTAINER_KPIS
from casslab.report import text
from casslab.report.figures import kpi_label
from casslab.report.report_document import Table, TableRow

PROCESS_KPIS = (
    "cassandra_cpu_pct",
    "cassandra_cpu_user_pct",
    "cassandra_cpu_system_pct",
    "engine_cpu_pct",
    "other_cpu_pct",
    "gc_pause_ms",
    "cassandra_disk_write_bytes_per_s",
    "cassandra_rss_bytes",
    "engine_rss_bytes",
)
"""What each process of the host used, per cell, whether or not the file lists them."""

SERVER_LATENCY_KPIS = (
    "cassandra_read_latency_p99_ms",
    "table_read_latency_p99_ms",
    "cassandra_write_latency_p99_ms",
    "table_write_latency_p99_ms",
    "table_sstables_per_read_mean",
    "table_sstables_per_read_p99",
)
"""Cassandra's own latency per cell: each coordinator figure beside its table's."""


def _table(
    trials: Sequence[TrialKpis],
    cells: Sequence[str],
    confidence: float,
    kpis: Sequence[str],
    *,
    table_id: str,
    title: str,
    note: str,
) -> Table | None:
    """Per cell, the mean ± CI half-width (SD; variance) of each of ``kpis`` the trials
    measured; None when no trial measured any."""
    present = [k for k in kpis if any(t.kpis.get(k) is not None for t in trials)]
    if not present:
        return None
    stats = {
        (s.cell_id, k): s for k in present for s in cell_stats(trials, k, confidence=confidence)
    }
    rows = []
    for cell in cells:
        row = [cell]
        for kpi in present:
            found = stats.get((cell, kpi))
            if found is None or found.mean is None:
                row.append(text.DASH)
                continue
            spread = f" (SD {text.number(found.sd)}; var {text.number(found.var)})"
            row.append(text.mean_ci(found) + (spread if found.sd is not None else ""))
        rows.append(TableRow(cells=row))
    columns = ["cell", *(kpi_label(k) for k in present)]
    return Table(id=table_id, title=title, columns=columns, rows=rows, note=note)


def process_table(
    trials: Sequence[TrialKpis], cells: Sequence[str], confidence: float
) -> Table | None:
    """Cassandra (summed over nodes), the load engine and the rest of the host."""
    return _table(
        trials,
        cells,
        confidence,
        PROCESS_KPIS,
        table_id="cells-processes",
        title="Resources by process: Cassandra (all nodes), the load engine and the rest",
        note=(
            "Mean ± 95% CI half-width over each cell's trials, over the steady part of the "
            "measured phase. CPU in % of ONE core (user + system, from /proc); other = the "
            "host's busy CPU less Cassandra and the engine (the lab, the kernel, other "
            "processes). Per-node values are in trials.parquet (node<N>.<kpi>)."
        ),
    )


def container_table(
    trials: Sequence[TrialKpis], cells: Sequence[str], confidence: float
) -> Table | None:
    """The nodes' cgroups, as ``docker stats`` shows a container (isolated nodes)."""
    return _table(
        trials,
        cells,
        confidence,
        CONTAINER_KPIS,
        table_id="cells-containers",
        title="Resources by container: the nodes' cgroups (all nodes)",
        note=(
            "Mean ± 95% CI half-width over each cell's trials, over the steady part of the "
            "measured phase, read from each node's cgroup and the host end of its veth: CPU "
            "in % of ONE core summed over nodes, throttled periods, CPU quota (CPUs) and "
            "memory of the most throttled / largest node, network and block I/O summed. "
            "Per-node values are in trials.parquet (node<N>.<kpi>)."
        ),
    )


def server_latency_table(
    trials: Sequence[TrialKpis], cells: Sequence[str], confidence: float
) -> Table | None:
    """The coordinator's latency beside the workload table's local one, and SSTables per
    read: where a request's time went inside Cassandra."""
    return _table(
        trials,
        cells,
        confidence,
        SERVER_LATENCY_KPIS,
        table_id="cells-server-latency",
        title="Latency as Cassandra measured it: the coordinator and the workload's table",
        note=(
            "Mean ± 95% CI half-width over each cell's trials. Coordinator: ClientRequest "
            "latency (the whole request, replicas included); table: the local read or write "
            "on a replica of the user table with the most requests (Table metrics), and the "
            "SSTables each local read touched. Both are Cassandra's decaying reservoirs, "
            "read each second and averaged over the window, the slowest node's."
        ),
    )


def resource_tables(
    trials: Sequence[TrialKpis], cells: Sequence[str], confidence: float
) -> list[Table]:
    """The resource tables the trials have data for."""
    tables = (
        process_table(trials, cells, confidence),
        container_table(trials, cells, confidence),
        server_latency_table(trials, cells, confidence),
    )
    return [t for t in tables if t is not None]
