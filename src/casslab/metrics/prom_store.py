"""The newest values a Prometheus scrape shows: filled by the sampling thread (and, during
``casslab run``, by the runner's engine intervals), read by the collector at each scrape.

A value is shown until it is older than ``max_age_s`` (a sampler stopped, a measured phase
ended), or until its source fails: a gap of a node's source (node down, process gone)
removes that node's values of that source at once, as Prometheus' staleness would. The
default age (a minute) outlasts the slowest cadence of a source (the CQL sampler reads
``system.compaction_history`` every 30 s).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from pydantic import Field

from casslab.errors import MetricsError
from casslab.metrics.catalogue import metric
from casslab.metrics.prom_names import IntervalStat
from casslab.metrics.source import Gap, Sample
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.engine_contract.engine_records import IntervalRecord, OpStats

DEFAULT_MAX_AGE_S = 60.0
TOTAL_OP = "total"


class NodeLabels(Record):
    """The labels of one node's series: its datacenter and the machine it runs on."""

    dc: str
    host: str


class ClusterLabels(Record):
    """The labels of a cluster's series: its name, and each node's by its node label (the
    address its samples carry)."""

    cluster: str
    nodes: dict[str, NodeLabels] = Field(default_factory=dict)

    def of(self, node: str) -> NodeLabels:
        """A node's labels; a node the cluster does not list (the load engine's process)
        gets empty ones, which Prometheus treats as absent."""
        return self.nodes.get(node, NodeLabels(dc="", host=""))


class EngineRow(Record):
    """One operation's statistics of the load engine's newest interval of a trial."""

    cluster: str
    trial: str
    cell: str
    phase: str
    op: str
    time: float  # Unix s when casslab received the interval
    values: dict[IntervalStat, float]
    # operations failed since the trial's phase began, by kind of error (those that occurred)
    errors_by_kind: dict[str, float] = Field(default_factory=dict)


class Snapshot(Record):
    """What one scrape shows: the labels, the newest value of each (node, metric), and the
    engine's newest interval statistics of each (trial, phase, op)."""

    labels: ClusterLabels
    samples: tuple[Sample, ...] = ()
    engine: tuple[EngineRow, ...] = ()


def _op_values(stats: OpStats, threads: int | None) -> dict[IntervalStat, float]:
    response = stats.response
    values = {
        IntervalStat.OP_RATE: stats.op_rate,
        IntervalStat.ERRORS: float(stats.errors),
        IntervalStat.MEAN: response.mean_ms,
        IntervalStat.P50: response.p50_ms,
        IntervalStat.P95: response.p95_ms,
        IntervalStat.P99: response.p99_ms,
        IntervalStat.P999: response.p999_ms,
        IntervalStat.MAX: response.max_ms,
    }
    if threads is not None:
        values[IntervalStat.THREADS] = float(threads)
    return values


def engine_rows(
    cluster: str, trial: str, cell: str, record: IntervalRecord, now: float
) -> list[EngineRow]:
    """The rows of one engine interval: the total (with the concurrency) and each op."""
    ops: list[tuple[str, OpStats, int | None]] = [(TOTAL_OP, record.total, record.threads)]
    ops += [(name, stats, None) for name, stats in sorted(record.ops.items())]
    return [
        EngineRow(
            cluster=cluster,
            trial=trial,
            cell=cell,
            phase=record.phase,
            op=op,
            time=now,
            values=_op_values(stats, threads),
        )
        for op, stats, threads in ops
    ]


class LatestValues:
    """The newest value of each series, thread-safe (see the module docstring)."""

    def __init__(self, labels: ClusterLabels, *, max_age_s: float = DEFAULT_MAX_AGE_S) -> None:
        if max_age_s <= 0:
            raise MetricsError(f"max age {max_age_s} s of served metrics is not positive")
        self._labels = labels
        self._max_age_s = max_age_s
        self._samples: dict[tuple[str, str], Sample] = {}
        self._engine: dict[tuple[str, str, str], EngineRow] = {}
        self._totals: dict[tuple[str, str, str], tuple[float, float]] = {}
        self._lock = threading.Lock()

    @property
    def labels(self) -> ClusterLabels:
        with self._lock:
            return self._labels

    def set_labels(self, labels: ClusterLabels) -> None:
        """Label the series with another cluster's names from now on (a run's next
        cluster); the values of the previous one are dropped."""
        with self._lock:
            if labels != self._labels:
                self._samples.clear()
            self._labels = labels

    def update(self, now: float, samples: list[Sample], gaps: list[Gap]) -> None:
        """Keep one sampling instant's values and forget those of the sources that failed
        (a :data:`~casslab.metrics.sampling.TickCallback`)."""
        with self._lock:
            for gap in gaps:
                self._forget(gap)
            for s in samples:
                self._samples[(s.node, s.metric)] = s

    def _forget(self, gap: Gap) -> None:
        nodes = set(gap.node.split(","))  # a host sampler speaks for every node it holds
        for key in [k for k in self._samples if k[0] in nodes]:
            try:
                source = metric(key[1]).source.value
            except KeyError:
                continue
            if source == gap.source:
                del self._samples[key]

    def record_interval(self, trial: str, cell: str, record: IntervalRecord, now: float) -> None:
        """Keep the engine's newest interval of ``trial`` and add it to the trial's totals."""
        rows = engine_rows(self.labels.cluster, trial, cell, record, now)
        with self._lock:
            for row in rows:
                key = (row.trial, row.phase, row.op)
                ops, errors = self._totals.get(key, (0.0, 0.0))
                stats = record.total if row.op == TOTAL_OP else record.ops[row.op]
                ops, errors = ops + stats.count, errors + stats.errors
                self._totals[key] = (ops, errors)
                kinds = dict(self._engine[key].errors_by_kind) if key in self._engine else {}
                for kind, count in stats.errors_by_kind.items():
                    kinds[str(kind)] = kinds.get(str(kind), 0.0) + count
                values = {
                    **row.values,
                    IntervalStat.OPERATIONS_TOTAL: ops,
                    IntervalStat.ERRORS_TOTAL: errors,
                }
                update = {"values": values, "errors_by_kind": kinds}
                self._engine[key] = row.model_copy(update=update)

    def snapshot(self, now: float) -> Snapshot:
        """The values no older than the maximum age at ``now`` (older ones are dropped)."""
        oldest = now - self._max_age_s
        with self._lock:
            for key in [k for k, s in self._samples.items() if s.time < oldest]:
                del self._samples[key]
            for series in [k for k, r in self._engine.items() if r.time < oldest]:
                del self._engine[series]
                self._totals.pop(series, None)
            return Snapshot(
                labels=self._labels,
                samples=tuple(self._samples.values()),
                engine=tuple(self._engine.values()),
            )
