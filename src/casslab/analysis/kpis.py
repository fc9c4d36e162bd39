"""Per-trial KPIs from the engine's records and from the long-format metrics frame.

* :func:`kpis_from_summary`: op rate, errors and response-time latency (mean, p50, p95, p99,
  p99.9, max), in total and per operation type (``read.latency_p99_ms``), and where ANN
  queries counted recall its mean and p5 / p1 (``ann.recall_at_k``) and the queries that
  could not be judged (``recall_unjudged``, search while loading), from the engine's
  :class:`~casslab.engine_contract.workload_spec.SummaryRecord`. Response time counts from the
  intended start, so it includes queueing (no coordinated omission).
* :func:`kpis_from_intervals`: the same from the measured :class:`IntervalRecord` s when no
  summary exists (a trial cut short): op rate, errors, count-weighted mean latency, the
  largest max and the recall of every query (summed counts: exact). Latency percentiles
  cannot be merged from per-interval percentiles, so they are ``None`` here (the
  HdrHistogram log has them).
* :func:`kpis_from_metrics`: resource and compaction KPIs from a frame with columns
  ``time, node, metric, value`` (``casslab.metrics.store.load``; time in Unix seconds) by
  the rules of :data:`casslab.analysis.metric_rules.METRIC_RULES`, the one table mapping
  sampler metric names (``casslab.metrics.catalogue``) to KPIs: adjust it there when the
  catalogue changes.
  Host metrics are recorded under every node label that shares the host, so they are
  averaged over nodes; Cassandra metrics are per node and summed (or the max is taken).
  Rules marked ``per_node`` also give one KPI per node, ``node<N>.<kpi>``, N counting the
  nodes in address order (:func:`node_numbers`). CPU KPIs are in % of ONE core, so that
  ``host_cpu_pct = cassandra_cpu_pct + engine_cpu_pct + other_cpu_pct``.
  The workload's table KPIs (``table_read_latency_p99_ms``, ...) are those of the user
  table with the most local reads and writes in the window (:func:`busiest_table`).

A KPI that was not measured is ``None``, never 0. All KPIs of one trial, over its steady
part, come from :func:`casslab.analysis.trial.trial_kpis`.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from itertools import pairwise

import numpy as np
import numpy.typing as npt
import pandas as pd

from casslab.analysis.kpi_catalogue import node_kpi
from casslab.analysis.metric_rules import (
    METRIC_RULES,
    TABLE_ACTIVITY,
    AcrossNodes,
    MetricRule,
    Reduction,
    table_rules,
)
from casslab.engine_contract.engine_records import (
    IntervalRecord,
    LatencyStats,
    OpStats,
    RecallStats,
    SummaryRecord,
)
from casslab.engine_contract.recall import merged_recall
from casslab.errors import AnalysisError

# ---------------------------------------------------------------- engine records

_LATENCY_FIELDS: tuple[tuple[str, str], ...] = (
    ("latency_mean_ms", "mean_ms"),
    ("latency_p50_ms", "p50_ms"),
    ("latency_p95_ms", "p95_ms"),
    ("latency_p99_ms", "p99_ms"),
    ("latency_p999_ms", "p999_ms"),
    ("latency_max_ms", "max_ms"),
)
_RECALL_FIELDS: tuple[tuple[str, str], ...] = (
    ("recall_at_k", "mean"),
    ("recall_p5", "p5"),
    ("recall_p1", "p1"),
)


def _prefixed(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _recall_kpis(recall: RecallStats | None, unjudged: int, prefix: str) -> dict[str, float | None]:
    """Recall@k KPIs of ANN queries and the count of queries that could not be judged
    (search while loading); none for operations that count no recall."""
    out: dict[str, float | None] = {}
    if recall is not None:
        out = {_prefixed(prefix, kpi): float(getattr(recall, f)) for kpi, f in _RECALL_FIELDS}
    if recall is not None or unjudged:
        out[_prefixed(prefix, "recall_unjudged")] = float(unjudged)
    return out


def _op_kpis(stats: OpStats, prefix: str) -> dict[str, float | None]:
    out: dict[str, float | None] = {
        _prefixed(prefix, "op_rate"): float(stats.op_rate),
        _prefixed(prefix, "errors"): float(stats.errors),
    }
    latency: LatencyStats = stats.response
    for kpi, field in _LATENCY_FIELDS:
        value = float(getattr(latency, field)) if latency.count > 0 else None
        out[_prefixed(prefix, kpi)] = value
    out.update(_recall_kpis(stats.recall, stats.recall_unjudged, prefix))
    return out


def kpis_from_summary(summary: SummaryRecord) -> dict[str, float | None]:
    """Op rate, errors and response latency, total and per operation type.

    Latency KPIs of an operation type that completed no operation are ``None``.
    """
    out = _op_kpis(summary.total, "")
    for name, stats in sorted(summary.ops.items()):
        out.update(_op_kpis(stats, name))
    return out


def _merge_intervals(stats: Sequence[OpStats], duration_s: float) -> dict[str, float | None]:
    count = sum(s.count for s in stats)
    timed = [s.response for s in stats if s.response.count > 0]
    latency_count = sum(lat.count for lat in timed)
    out: dict[str, float | None] = {
        "op_rate": count / duration_s if duration_s > 0 else None,
        "errors": float(sum(s.errors for s in stats)),
        "latency_p50_ms": None,
        "latency_p95_ms": None,
        "latency_p99_ms": None,
        "latency_p999_ms": None,
    }
    if latency_count > 0:
        out["latency_mean_ms"] = sum(lat.mean_ms * lat.count for lat in timed) / latency_count
        out["latency_max_ms"] = max(lat.max_ms for lat in timed)
    else:
        out["latency_mean_ms"] = None
        out["latency_max_ms"] = None
    unjudged = sum(s.recall_unjudged for s in stats)
    out.update(_recall_kpis(merged_recall([s.recall for s in stats]), unjudged, ""))
    return out


def kpis_from_intervals(
    intervals: Sequence[IntervalRecord], *, phase: str = "measure"
) -> dict[str, float | None]:
    """KPIs over the intervals of one phase (see the module docstring); ``{}`` if none.

    The op rate is operations over the summed interval durations.
    """
    chosen = [i for i in intervals if i.phase == phase]
    if not chosen:
        return {}
    duration_s = sum(i.t_end_s - i.t_start_s for i in chosen)
    out = _merge_intervals([i.total for i in chosen], duration_s)
    names = sorted({name for i in chosen for name in i.ops})
    for name in names:
        per_op = _merge_intervals([i.ops[name] for i in chosen if name in i.ops], duration_s)
        out.update({f"{name}.{kpi}": value for kpi, value in per_op.items()})
    return out


def interval_series(
    intervals: Sequence[IntervalRecord], kpi: str, *, phase: str = "measure"
) -> list[float | None]:
    """One KPI per interval of a phase, in time order (for :mod:`casslab.analysis.autocorr`).

    ``kpi`` is ``op_rate``, ``errors``, a latency KPI or a recall KPI (``recall_at_k``,
    ``recall_p5``, ``recall_p1``, ``recall_unjudged``), optionally per operation
    (``read.latency_p99_ms``). An interval where the KPI is undefined (no ANN query: no
    recall) gives ``None``.
    """
    operation, _, base = kpi.rpartition(".")
    per_interval = (
        "op_rate",
        "errors",
        *(k for k, _ in (*_LATENCY_FIELDS, *_RECALL_FIELDS)),
        "recall_unjudged",
    )
    if base not in per_interval:
        raise AnalysisError(
            f"interval series of {kpi!r}: the engine reports {', '.join(per_interval)} per "
            "interval; choose one of those"
        )
    out: list[float | None] = []
    for interval in sorted((i for i in intervals if i.phase == phase), key=lambda i: i.t_start_s):
        stats = interval.ops.get(operation) if operation else interval.total
        if stats is None:
            out.append(None)
            continue
        out.append(_op_kpis(stats, "").get(base))
    return out


# ---------------------------------------------------------------- metrics frame

METRICS_COLUMNS = ("time", "node", "metric", "value")


def counter_increase(values: Sequence[float]) -> float:
    """Increase of a monotonic counter over consecutive samples.

    A sample lower than its predecessor is a counter reset (a node restart): the counter
    counted from zero, so the new value itself is the increase since the reset.
    """
    total = 0.0
    for previous, current in pairwise(values):
        total += current - previous if current >= previous else current
    return total


def _seconds(times: pd.Series) -> npt.NDArray[np.float64]:
    if pd.api.types.is_datetime64_any_dtype(times):
        delta = (times - times.iloc[0]) / pd.Timedelta(seconds=1)
        return np.asarray(delta, dtype=float)
    return np.asarray(times, dtype=float)


def _reduce_node(samples: pd.DataFrame, reduction: Reduction) -> float | None:
    values = [float(v) for v in samples["value"]]
    if reduction is Reduction.GAUGE_MEAN:
        return float(np.mean(values))
    if reduction is Reduction.GAUGE_MAX:
        return max(values)
    if reduction is Reduction.GAUGE_ABS_MEAN:
        return float(np.mean(np.abs(values)))
    if len(values) < 2:
        return None  # one sample gives no increase: unknown, not zero
    if reduction is Reduction.GAUGE_CHANGE:
        quarter = max(1, len(values) // 4)
        return float(np.mean(values[-quarter:]) - np.mean(values[:quarter]))
    increase = counter_increase(values)
    if reduction is Reduction.COUNTER_DELTA:
        return increase
    seconds = _seconds(samples["time"])
    elapsed = float(seconds[-1] - seconds[0])
    return increase / elapsed if elapsed > 0 else None


def _node_values(
    by_metric: Mapping[str, pd.DataFrame], rule: MetricRule
) -> dict[str, float | None]:
    """``reduce(samples)`` of each node with samples of the rule's first metric that has
    any; a node whose value cannot be told maps to None."""
    for metric in rule.metrics:
        rows = by_metric.get(metric)
        if rows is not None and not rows.empty:
            return {
                str(node): _reduce_node(samples.sort_values("time", kind="stable"), rule.reduction)
                for node, samples in rows.groupby("node", sort=True)
            }
    return {}


def _combine(values: Iterable[float | None], rule: MetricRule) -> float | None:
    per_node: list[float] = []
    for value in values:
        if value is None:
            return None  # a node's share unknown: the cluster total is unknown too
        per_node.append(value)
    if not per_node:
        return None
    if rule.across_nodes is AcrossNodes.SUM:
        combined = float(sum(per_node))
    elif rule.across_nodes is AcrossNodes.MEAN:
        combined = float(np.mean(per_node))
    else:
        combined = max(per_node)
    return combined * rule.scale


def _finite(value: float | None) -> float | None:
    return value if value is None or math.isfinite(value) else None


def _address_key(label: str) -> tuple[int, int, str]:
    try:
        address = ipaddress.ip_address(label)
    except ValueError:
        return (1, 0, label)
    return (0, int(address), label)


def node_numbers(labels: Iterable[str]) -> dict[str, int]:
    """Node number (1, 2, ...) of each node label: IP addresses in numeric order, then any
    other names in alphabetical order. A local cluster's node N has the N-th address, so
    ``node<N>.<kpi>`` is the node casslab calls node N."""
    return {label: n for n, label in enumerate(sorted(set(labels), key=_address_key), 1)}


def _apply_rules(
    window: pd.DataFrame, rules: Sequence[MetricRule], numbers: Mapping[str, int]
) -> dict[str, float | None]:
    by_metric: dict[str, pd.DataFrame] = {
        str(metric): rows for metric, rows in window.groupby("metric", sort=False)
    }
    out: dict[str, float | None] = {}
    for rule in rules:
        values = _node_values(by_metric, rule)
        value = _finite(_combine(values.values(), rule))
        for name in rule.minus:
            if name not in out:
                raise AnalysisError(
                    f"KPI rule {rule.kpi!r} subtracts {name!r}, which no earlier rule "
                    "computes; list the rule of that KPI before it"
                )
            other = out[name]
            value = None if value is None or other is None else value - other
        out[rule.kpi] = value
        if rule.per_node:
            for node, node_value in sorted(values.items(), key=lambda kv: numbers.get(kv[0], 0)):
                if node not in numbers:
                    raise AnalysisError(
                        f"KPI {rule.kpi!r} per node: node {node!r} has no number in "
                        f"{dict(numbers)}; give every node of the frame a number"
                    )
                scaled = None if node_value is None else node_value * rule.scale
                out[node_kpi(numbers[node], rule.kpi)] = _finite(scaled)
    return out


def busiest_table(window: pd.DataFrame) -> str | None:
    """``keyspace.table`` of the user table with the largest increase of local reads plus
    writes over the window, summed over nodes (ties: the first by name); None when no table
    counter has two samples."""
    activity: dict[str, float] = {}
    prefixes = tuple(f"{family}/" for family in TABLE_ACTIVITY)
    rows = window[window["metric"].astype(str).str.startswith(prefixes)]
    for (metric, _node), samples in rows.groupby(["metric", "node"], sort=True):
        values = [float(v) for v in samples.sort_values("time", kind="stable")["value"]]
        if len(values) < 2:
            continue
        table = str(metric).partition("/")[2]
        activity[table] = activity.get(table, 0.0) + counter_increase(values)
    if not activity:
        return None
    return min(activity, key=lambda table: (-activity[table], table))


def kpis_from_metrics(
    frame: pd.DataFrame,
    *,
    start: float | datetime | None = None,
    end: float | datetime | None = None,
    rules: Sequence[MetricRule] = METRIC_RULES,
    numbering: Mapping[str, int] | None = None,
) -> dict[str, float | None]:
    """Resource and compaction KPIs over the window ``start <= time <= end``.

    Every rule's KPI is in the result; it is ``None`` when its metric has no sample in the
    window, or when a counter has fewer than 2 samples on some node. Per-node KPIs
    (``node<N>.<kpi>``) are there for each node with samples; ``numbering`` maps a node
    label to its number N (default: :func:`node_numbers` of the frame's nodes with
    per-node metrics). Rows whose value is NaN are gaps and are dropped.
    ``start``/``end`` compare with the ``time`` column, so pass seconds for a numeric
    column and datetimes for a datetime column. With the default ``rules``, also the KPIs
    of the workload's table (:func:`busiest_table`, :func:`~.metric_rules.table_rules`).
    """
    missing = [c for c in METRICS_COLUMNS if c not in frame.columns]
    if missing:
        raise AnalysisError(
            f"KPIs from metrics: the frame lacks columns {missing}; it needs "
            f"{list(METRICS_COLUMNS)} (long format, one row per sample)"
        )
    window = frame[list(METRICS_COLUMNS)].dropna(subset=["value"])
    try:
        if start is not None:
            window = window[window["time"] >= start]
        if end is not None:
            window = window[window["time"] <= end]
    except TypeError as error:
        raise AnalysisError(
            f"KPIs from metrics: cannot compare the time column ({frame['time'].dtype}) with "
            f"the window {start!r}..{end!r} ({error}); pass seconds for a numeric column and "
            "timezone-matching datetimes for a datetime column"
        ) from error
    if numbering is None:
        per_node = {m for rule in rules if rule.per_node for m in rule.metrics}
        numbering = node_numbers(frame.loc[frame["metric"].isin(per_node), "node"].astype(str))
    out = _apply_rules(window, rules, numbering)
    if rules is METRIC_RULES:  # and the workload's table
        out.update(_apply_rules(window, table_rules(busiest_table(window) or ""), numbering))
    return out
