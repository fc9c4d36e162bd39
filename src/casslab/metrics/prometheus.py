"""casslab's metrics in the Prometheus exposition format: a ``prometheus_client`` collector
that shows, at each scrape, the newest sample of every (node, metric) and the load engine's
newest interval statistics (:class:`~casslab.metrics.prom_store.LatestValues`).

Names and labels are :mod:`casslab.metrics.prom_names`'; the HTTP endpoint is
:mod:`casslab.metrics.prom_server`'s. :func:`families` is pure: a snapshot in, metric
families out, so it is tested on literal rows without a server::

    store = LatestValues(ClusterLabels(cluster="lab", nodes={...}))
    recorder = metrics.recorder(targets, None, on_tick=store.update)
    with recorder, MetricsServer(store, port=9464):
        ...  # curl http://127.0.0.1:9464/metrics
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from casslab.metrics.catalogue import CATALOGUE, TABLE_SEPARATOR, MetricKind, family
from casslab.metrics.catalogue import Metric as CatalogueMetric
from casslab.metrics.prom_names import (
    ENGINE_INTERVAL_METRICS,
    ENGINE_LABELS,
    ERRORS_BY_KIND,
    ERRORS_BY_KIND_LABELS,
    HOST_LABEL,
    MEMBER_LABELS,
    TABLE_LABELS,
    family_name,
    label_names,
    table_of,
)
from casslab.metrics.prom_store import LatestValues, Snapshot
from casslab.metrics.source import Sample

_BY_NAME: dict[str, CatalogueMetric] = {m.name: m for m in CATALOGUE}


def _help(m: CatalogueMetric) -> str:
    return f"{m.help} Unit: {m.unit}. casslab metric {m.name} ({m.kind.value}, {m.source.value})."


Family = CounterMetricFamily | GaugeMetricFamily


def _new_family(name: str, kind: MetricKind, doc: str, labels: tuple[str, ...]) -> Family:
    if kind is MetricKind.COUNTER:
        return CounterMetricFamily(name, doc, labels=list(labels))
    return GaugeMetricFamily(name, doc, labels=list(labels))


def _sample_labels(snapshot: Snapshot, sample: Sample, m: CatalogueMetric) -> list[str]:
    node = snapshot.labels.of(sample.node)
    values = [snapshot.labels.cluster, sample.node, node.dc]
    names = label_names(m)
    if HOST_LABEL in names:
        values.append(node.host)
    if TABLE_LABELS[0] in names:  # a per-table metric: its keyspace and table
        keyspace, table = table_of(sample.metric) or ("", "")
        values += [keyspace, table]
    if any(label in names for label in MEMBER_LABELS):  # a stage or a verb
        values.append(sample.metric.partition(TABLE_SEPARATOR)[2])
    return values


def node_families(snapshot: Snapshot) -> list[Metric]:
    """One family per catalogue metric that has a sample, its samples labelled (see
    :mod:`casslab.metrics.prom_names`). Samples whose name is not in the catalogue, and
    NaN values, are left out."""
    built: dict[str, Family] = {}
    for sample in sorted(snapshot.samples, key=lambda s: (s.metric, s.node)):
        m = _BY_NAME.get(family(sample.metric))
        if m is None or math.isnan(sample.value):
            continue
        fam = built.get(m.name)
        if fam is None:
            fam = _new_family(family_name(m), m.kind, _help(m), label_names(m))
            built[m.name] = fam
        labels = _sample_labels(snapshot, sample, m)
        fam.add_metric(labels, sample.value)
    return list(built.values())


def engine_families(snapshot: Snapshot) -> list[Metric]:
    """One family per engine interval metric, a series per (trial, phase, op) of the
    engine's newest intervals; none when no trial is measuring."""
    if not snapshot.engine:
        return []
    out: list[Metric] = []
    rows = sorted(snapshot.engine, key=lambda r: (r.trial, r.phase, r.op))
    for spec in ENGINE_INTERVAL_METRICS:
        fam = _new_family(spec.name, spec.kind, spec.help, ENGINE_LABELS)
        added = 0
        for row in rows:
            value = row.values.get(spec.stat)
            if value is None or math.isnan(value):
                continue
            labels = [row.cluster, row.trial, row.cell, row.phase, row.op]
            fam.add_metric(labels, value)
            added += 1
        if added:
            out.append(fam)
    kinds = _new_family(
        ERRORS_BY_KIND.name, ERRORS_BY_KIND.kind, ERRORS_BY_KIND.help, ERRORS_BY_KIND_LABELS
    )
    for row in rows:
        for kind, count in sorted(row.errors_by_kind.items()):
            kinds.add_metric([row.cluster, row.trial, row.cell, row.phase, row.op, kind], count)
    if any(row.errors_by_kind for row in rows):
        out.append(kinds)
    return out


def families(snapshot: Snapshot) -> list[Metric]:
    """Every family a scrape of ``snapshot`` shows: the nodes', then the engine's."""
    return [*node_families(snapshot), *engine_families(snapshot)]


class LatestCollector(Collector):
    """A collector that shows the newest values of ``store`` at each scrape."""

    def __init__(self, store: LatestValues, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock

    def collect(self) -> Iterator[Metric]:
        yield from families(self._store.snapshot(self._clock()))

    def describe(self) -> Iterator[Metric]:
        """Nothing: the families depend on what was sampled, so the registry must not
        call :meth:`collect` at registration to learn them."""
        return iter(())
