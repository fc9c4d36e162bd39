"""casslab.metrics: per-second database, process and OS metrics for every node.

Typical use (the trial runner)::

    targets = metrics.targets_from_nodes(cluster.nodes)
    with metrics.recorder(targets, run_dir / "metrics.parquet", engine_pid=engine.pid):
        ...  # run the load
    frame = metrics.load(run_dir / "metrics.parquet")   # time, node, metric, value

See ``docs/metrics.md`` for every metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from casslab.metrics.catalogue import CATALOGUE, Metric, MetricKind, MetricSource
from casslab.metrics.recorder import Recorder, TickCallback, sample_once
from casslab.metrics.source import Gap, NodeTarget, Sample, Source, SourceUnavailableError
from casslab.metrics.sources import build_sources, targets_from_contact_points, targets_from_nodes
from casslab.metrics.store import ParquetSink, load, load_gaps

__all__ = [
    "CATALOGUE",
    "Gap",
    "Metric",
    "MetricKind",
    "MetricSource",
    "NodeTarget",
    "ParquetSink",
    "Recorder",
    "Sample",
    "Source",
    "SourceUnavailableError",
    "TickCallback",
    "build_sources",
    "load",
    "load_gaps",
    "recorder",
    "sample_once",
    "targets_from_contact_points",
    "targets_from_nodes",
]


def recorder(
    targets: Sequence[NodeTarget],
    path: str | Path | None,
    *,
    interval_s: float = 1.0,
    flush_every_s: float = 5.0,
    engine_pid: int | None = None,
    use_jmx: bool = True,
    on_tick: TickCallback | None = None,
) -> Recorder:
    """A recorder (not started; use it as a context manager) sampling every source the
    targets allow into Parquet at ``path`` (None: no file, ``on_tick`` only)."""
    sources = build_sources(targets, engine_pid=engine_pid, use_jmx=use_jmx)
    sink = None if path is None else ParquetSink(path)
    return Recorder(
        sources, sink, interval_s=interval_s, flush_every_s=flush_every_s, on_tick=on_tick
    )
