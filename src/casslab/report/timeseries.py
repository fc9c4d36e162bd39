"""The time-series figures the seeds drew, beside the report's own (pure): CPU user,
system and iowait, disk read and write MB/s, memory used and cached, compactions completed
and bytes compacted, per node (:data:`SEED_FIGURES`); what Cassandra saw, per node
(:data:`SERVER_FIGURES`) and on the workload's table (:func:`table_figures`); the same
averaged over a cell's
iterations in slots of ``window_s`` seconds (seed 002 averaged 30 s slots over its
iterations, :func:`windowed_lines`); and the faults' windows as shaded bands
(:func:`fault_bands`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

from casslab.analysis.kpis import busiest_table
from casslab.report.frames import metric_nodes, metric_series
from casslab.report.report_document import Band, Series
from casslab.store.run_data import RunData, TrialData

# (figure id, metric, how nodes combine, title, unit, scale from the metric's unit)
SEED_FIGURES = (
    ("metric-cpu-user", "host.cpu_user_pct", "node", "CPU user by node", "%", 1.0),
    ("metric-cpu-system", "host.cpu_system_pct", "node", "CPU system by node", "%", 1.0),
    ("metric-cpu-iowait", "host.cpu_iowait_pct", "node", "CPU iowait by node", "%", 1.0),
    ("metric-disk-read", "host.disk_read_bytes_per_s", "node", "Disk read by node", "MB/s", 1e-6),
    (
        "metric-disk-write",
        "host.disk_write_bytes_per_s",
        "node",
        "Disk write by node",
        "MB/s",
        1e-6,
    ),
    ("metric-memory-used", "host.memory_used_bytes", "node", "Memory used by node", "GB", 1e-9),
    (
        "metric-memory-cached",
        "host.memory_cached_bytes",
        "node",
        "Memory cached by node",
        "GB",
        1e-9,
    ),
    (
        "metric-compactions-completed",
        "cassandra.compactions_completed",
        "node",
        "Compactions completed by node",
        "tasks",
        1.0,
    ),
    (
        "metric-bytes-compacted",
        "cassandra.bytes_compacted",
        "node",
        "Bytes compacted by node (since its start)",
        "MB",
        1e-6,
    ),
)
# What Cassandra saw, per node: the request stages' queues, its own latency percentiles
# and its key-cache hit rate (drawn when the trial recorded them)
SERVER_FIGURES = (
    *(
        (
            f"metric-stage-pending-{pool.lower()}",
            f"cassandra.stage_pending/{pool}",
            "node",
            f"{pool} pending tasks by node",
            "tasks",
            1.0,
        )
        for pool in ("MutationStage", "ReadStage", "Native-Transport-Requests")
    ),
    (
        "metric-stage-blocked-native-transport-requests",
        "cassandra.stage_blocked/Native-Transport-Requests",
        "node",
        "Native-Transport-Requests blocked tasks by node",
        "tasks",
        1.0,
    ),
    *(
        (
            f"metric-cassandra-{op}-p99",
            f"cassandra.{op}_latency_p99_ms",
            "node",
            f"Coordinator {op} latency p99 (Cassandra's own) by node",
            "ms",
            1.0,
        )
        for op in ("read", "write")
    ),
    (
        "metric-key-cache-hit",
        "cassandra.key_cache_hit_pct",
        "node",
        "Key-cache hit rate by node",
        "%",
        1.0,
    ),
)
FAULT_COLOR = "#d62728"

Figure = tuple[str, str, str, str, str, float]
"""(figure id, metric, how nodes combine, title, unit, scale from the metric's unit)"""


def workload_table(run: RunData) -> str | None:
    """``keyspace.table`` that most trials of the run worked on (each trial's table with the
    most local reads and writes, :func:`~casslab.analysis.kpis.busiest_table`; ties: the
    first by name); None when no trial recorded per-table metrics."""
    tables = Counter(
        table
        for trial in run.trials
        if trial.metrics is not None and not trial.metrics.empty
        for table in [busiest_table(trial.metrics)]
        if table is not None
    )
    if not tables:
        return None
    return min(tables, key=lambda table: (-tables[table], table))


def table_figures(table: str) -> tuple[Figure, ...]:
    """What Cassandra measured of one table on each replica, per node: local read and write
    latency p99 and the SSTables a read touched (the per-table metrics end in ``/<table>``)."""
    slug = table.replace(".", "-").replace("_", "-").lower()
    latency = tuple(
        (
            f"metric-table-{op}-p99-{slug}",
            f"cassandra.table_{op}_latency_p99_ms/{table}",
            "node",
            f"Local {op} latency p99 of {table} (Cassandra's own, per replica) by node",
            "ms",
            1.0,
        )
        for op in ("read", "write")
    )
    sstables = (
        f"metric-table-sstables-per-read-{slug}",
        f"cassandra.table_sstables_per_read_mean/{table}",
        "node",
        f"SSTables per local read of {table}, mean, by node",
        "sstables",
        1.0,
    )
    return (*latency, sstables)


def fault_bands(run: RunData, cells: Sequence[str]) -> list[Band]:
    """One band per distinct fault window of the cells' trials (the same timeline runs in
    every trial: windows a second apart are one band, spanning them all)."""
    spans: dict[tuple[str, int], Band] = {}
    for trial in run.trials:
        if trial.result.cell_id not in cells:
            continue
        for span in trial.faults:
            key = (span.label, round(span.start_s))
            band = spans.get(key)
            if band is None:
                spans[key] = Band(x0=span.start_s, x1=span.end_s, label=span.label)
            else:
                spans[key] = band.model_copy(
                    update={"x0": min(band.x0, span.start_s), "x1": max(band.x1, span.end_s)}
                )
    return [b.model_copy(update={"color": FAULT_COLOR}) for b in sorted(spans.values(), key=_start)]


def _start(band: Band) -> float:
    return band.x0


def _slots(
    times: Sequence[float], values: Sequence[float | None], window_s: float
) -> dict[int, float]:
    """The mean of each ``window_s`` slot (slot k covers [k*w, (k+1)*w))."""
    sums: dict[int, list[float]] = {}
    for t, v in zip(times, values, strict=True):
        if v is not None and not math.isnan(v):
            sums.setdefault(math.floor(t / window_s), []).append(v)
    return {k: sum(vs) / len(vs) for k, vs in sums.items()}


def windowed_lines(
    trials: Sequence[TrialData],
    metric: str,
    combine: str,
    cell: str,
    color_of: Callable[[str | None], str],
    *,
    window_s: float,
    scale: float = 1.0,
) -> list[Series]:
    """The cell's lines of ``metric`` averaged over its trials in ``window_s`` slots: one
    line (or one per node with ``combine="node"``), each point the mean over iterations of
    the slot means, drawn at the slot's middle; ``color_of`` colours a node's line (None:
    the cell's one line)."""
    nodes: Sequence[str | None] = [None]
    if combine == "node":
        nodes = sorted({n for t in trials for n in metric_nodes(t, metric)})
    out: list[Series] = []
    for node in nodes:
        per_trial = []
        for trial in trials:
            times, values = metric_series(trial, metric, combine=combine, node=node)
            if times:
                per_trial.append(_slots(times, values, window_s))
        if not per_trial:
            continue
        slots = sorted({k for slots in per_trial for k in slots})
        means = [
            sum(s[k] for s in per_trial if k in s) / sum(1 for s in per_trial if k in s)
            for k in slots
        ]
        label = f"{node + ' ' if node else ''}{cell}"
        out.append(
            Series(
                name=f"{label} (mean of {len(per_trial)} iterations, {window_s:g} s slots)",
                x=[(k + 0.5) * window_s for k in slots],
                y=[m * scale for m in means],
                color=color_of(node),
                group=label,
            )
        )
    return out
