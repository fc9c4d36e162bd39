"""casslab.metrics: per-second database, process and OS metrics for every node.

Typical use (the trial runner)::

    targets = metrics.targets_from_nodes(cluster.nodes)
    with metrics.recorder(targets, run_dir / "metrics.parquet", engine_pid=engine.pid):
        ...  # run the load
    frame = metrics.load(run_dir / "metrics.parquet")   # time, node, metric, value

See ``docs/metrics.md`` for every metric.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casslab.metrics.catalogue import CATALOGUE, ENGINE_NODE, Metric, MetricKind, MetricSource
from casslab.metrics.source import Gap, NodeTarget, Sample, Source, SourceUnavailableError

if TYPE_CHECKING:
    from casslab.metrics.process import ProcessSource
    from casslab.metrics.remote import RemoteNode
    from casslab.metrics.sampling import Recorder, TickCallback, sample_once
    from casslab.metrics.sources import (
        build_sources,
        targets_from_contact_points,
        targets_from_nodes,
    )
    from casslab.metrics.store import ParquetSink, load, load_gaps

# Loaded on first use: they pull in pandas and pyarrow, which the CLI should not pay for
# on every command.
_LAZY = {
    "ProcessSource": "process",
    "Recorder": "sampling",
    "TickCallback": "sampling",
    "sample_once": "sampling",
    "build_sources": "sources",
    "targets_from_contact_points": "sources",
    "targets_from_nodes": "sources",
    "ParquetSink": "store",
    "load": "store",
    "load_gaps": "store",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"casslab.metrics.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'casslab.metrics' has no attribute {name!r}")


__all__ = [
    "CATALOGUE",
    "Gap",
    "Metric",
    "MetricKind",
    "MetricSource",
    "NodeTarget",
    "ParquetSink",
    "ProcessSource",
    "Recorder",
    "Sample",
    "Source",
    "SourceUnavailableError",
    "TickCallback",
    "build_sources",
    "engine_source",
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
    remote: Mapping[str, RemoteNode] | None = None,
) -> Recorder:
    """A recorder (not started; use it as a context manager) sampling every source the
    targets allow into Parquet at ``path`` (None: no file, ``on_tick`` only)."""
    from casslab.metrics.sampling import Recorder
    from casslab.metrics.sources import build_sources
    from casslab.metrics.store import ParquetSink

    sources = build_sources(targets, engine_pid=engine_pid, use_jmx=use_jmx, remote=remote)
    sink = None if path is None else ParquetSink(path)
    return Recorder(
        sources, sink, interval_s=interval_s, flush_every_s=flush_every_s, on_tick=on_tick
    )


def engine_source(pid: int) -> Source:
    """A sampler of the load engine process ``pid`` (rows under node ``engine``), to hand
    to :meth:`Recorder.add_source` once the engine is spawned."""
    from casslab.metrics.process import ProcessSource

    return ProcessSource(ENGINE_NODE, pid, prefix="engine")
