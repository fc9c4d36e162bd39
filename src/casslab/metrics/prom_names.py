"""Prometheus names and label sets of casslab's metrics (pure).

Every catalogue metric is exposed under ``casslab_`` plus its name with the dots made
underscores: the unit stays where the catalogue puts it (``host.disk_read_bytes_per_s``
-> ``casslab_host_disk_read_bytes_per_s``, ``cassandra.gc_pause_ms`` (a counter) ->
``casslab_cassandra_gc_pause_ms_total``). Counters end in ``_total`` as Prometheus asks;
gauges and rates are gauges. The load engine's interval statistics, which are not sampled
but streamed by the engine, have names of their own (:data:`ENGINE_INTERVAL_METRICS`).

Labels: every node metric has ``cluster``, ``node`` (its address) and ``dc``; the host
metrics add ``host`` (the machine they describe: several nodes on one machine share its
figures); the per-table metrics add ``keyspace`` and ``table``, the per-stage ones
``stage`` (the thread pool) and the dropped messages by verb ``verb``. The engine's interval
metrics have ``cluster``, ``trial``, ``cell``, ``phase`` and ``op`` (``total`` or an
operation of the workload, e.g. ``read``).
"""

from __future__ import annotations

import enum
import re

from casslab.metrics.catalogue import TABLE_SEPARATOR, Metric, MetricKind, MetricSource
from casslab.metrics.catalogue_server import PER_STAGE_FAMILIES, PER_VERB_FAMILIES, TABLE_METRICS
from casslab.record import Record

PREFIX = "casslab_"

_INVALID = re.compile(r"[^a-zA-Z0-9_]+")
_VALID = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")

NODE_LABELS = ("cluster", "node", "dc")
HOST_LABEL = "host"
TABLE_LABELS = ("keyspace", "table")
STAGE_LABEL = "stage"
VERB_LABEL = "verb"
MEMBER_LABELS = (STAGE_LABEL, VERB_LABEL)
ENGINE_LABELS = ("cluster", "trial", "cell", "phase", "op")

#: Catalogue families whose recorded names carry a table: ``<family>/<keyspace>.<table>``.
PER_TABLE_FAMILIES = frozenset(
    {
        "cassandra.table_sstables",
        "cassandra.table_live_disk_bytes",
        *(m.name for m in TABLE_METRICS),
    }
)


def sanitize(name: str) -> str:
    """``casslab_`` + ``name`` with every run of characters Prometheus does not allow in a
    metric name (``[a-zA-Z0-9_]``) made one underscore: ``host.cpu_user_pct`` ->
    ``casslab_host_cpu_user_pct``."""
    body = _INVALID.sub("_", name).strip("_")
    return f"{PREFIX}{body}"


def is_valid(name: str) -> bool:
    """Whether ``name`` is a legal Prometheus metric or label name (no colons: those are
    for recording rules)."""
    return _VALID.match(name) is not None


def family_name(metric: Metric) -> str:
    """The metric family of a catalogue entry, without a counter's ``_total``."""
    name = sanitize(metric.name)
    if metric.kind is MetricKind.COUNTER and name.endswith("_total"):
        name = name.removesuffix("_total")
    return name


def exposed_name(metric: Metric) -> str:
    """The name of the sample lines a scrape shows for a catalogue entry: a counter's
    family plus ``_total``, a gauge's family itself."""
    name = family_name(metric)
    return f"{name}_total" if metric.kind is MetricKind.COUNTER else name


def label_names(metric: Metric) -> tuple[str, ...]:
    """The labels of a catalogue entry's series (see the module docstring)."""
    names: tuple[str, ...] = NODE_LABELS
    if metric.source is MetricSource.HOST:
        names = (*names, HOST_LABEL)
    if metric.name in PER_TABLE_FAMILIES:
        names = (*names, *TABLE_LABELS)
    if metric.name in PER_STAGE_FAMILIES:
        names = (*names, STAGE_LABEL)
    if metric.name in PER_VERB_FAMILIES:
        names = (*names, VERB_LABEL)
    return names


def table_of(recorded: str) -> tuple[str, str] | None:
    """(keyspace, table) of a per-table recorded name (``cassandra.table_sstables/ks.t``),
    None for any other name."""
    _, sep, rest = recorded.partition(TABLE_SEPARATOR)
    if not sep:
        return None
    keyspace, dot, table = rest.partition(".")
    return (keyspace, table) if dot else (rest, "")


class IntervalStat(enum.StrEnum):
    """What an engine interval metric reads from the interval's statistics of one op."""

    OP_RATE = "op_rate"
    ERRORS = "errors"
    THREADS = "threads"
    MEAN = "mean_ms"
    P50 = "p50_ms"
    P95 = "p95_ms"
    P99 = "p99_ms"
    P999 = "p999_ms"
    MAX = "max_ms"
    OPERATIONS_TOTAL = "operations_total"
    ERRORS_TOTAL = "errors_total"


class IntervalMetric(Record):
    """One metric of the load engine's interval statistics."""

    name: str  # the family name; a counter's sample lines add _total
    kind: MetricKind  # GAUGE (the last interval) or COUNTER (since the trial's engine began)
    stat: IntervalStat
    help: str


def _interval(name: str, kind: MetricKind, stat: IntervalStat, help_text: str) -> IntervalMetric:
    return IntervalMetric(name=name, kind=kind, stat=stat, help=help_text)


_LATENCY = (
    "response time (from the intended start: queueing included) of the operations that "
    "succeeded in the last interval, ms"
)

ENGINE_INTERVAL_METRICS: tuple[IntervalMetric, ...] = (
    _interval(
        "casslab_engine_interval_op_rate_per_s",
        MetricKind.GAUGE,
        IntervalStat.OP_RATE,
        "Operations that succeeded per second over the load engine's last interval.",
    ),
    _interval(
        "casslab_engine_interval_errors",
        MetricKind.GAUGE,
        IntervalStat.ERRORS,
        "Operations that failed (after retries) in the load engine's last interval.",
    ),
    _interval(
        "casslab_engine_interval_threads",
        MetricKind.GAUGE,
        IntervalStat.THREADS,
        "Concurrency of the load engine in its last interval (op total only).",
    ),
    *(
        _interval(
            f"casslab_engine_interval_latency_{stat.value}",
            MetricKind.GAUGE,
            stat,
            f"{label} {_LATENCY}.",
        )
        for stat, label in (
            (IntervalStat.MEAN, "Mean"),
            (IntervalStat.P50, "Median (p50)"),
            (IntervalStat.P95, "95th percentile"),
            (IntervalStat.P99, "99th percentile"),
            (IntervalStat.P999, "99.9th percentile"),
            (IntervalStat.MAX, "Maximum"),
        )
    ),
    _interval(
        "casslab_engine_operations",
        MetricKind.COUNTER,
        IntervalStat.OPERATIONS_TOTAL,
        "Operations that succeeded since the trial's measured phase began (sum of its intervals).",
    ),
    _interval(
        "casslab_engine_errors",
        MetricKind.COUNTER,
        IntervalStat.ERRORS_TOTAL,
        "Operations that failed since the trial's measured phase began (sum of its intervals).",
    ),
)


#: Operations that failed since the trial's measured phase began, by the kind of their
#: final error (``casslab.engine_contract.engine_records.ErrorKind``): a counter with ``kind``
#: beside :data:`ENGINE_LABELS`, a series per kind that occurred.
ERRORS_BY_KIND = IntervalMetric(
    name="casslab_engine_errors_by_kind",
    kind=MetricKind.COUNTER,
    stat=IntervalStat.ERRORS_TOTAL,
    help=(
        "Operations that failed since the trial's measured phase began, by the kind of "
        "their final error (unavailable, write_timeout, read_timeout, client_timeout, ...)."
    ),
)
ERRORS_BY_KIND_LABELS = (*ENGINE_LABELS, "kind")


def interval_exposed_name(metric: IntervalMetric) -> str:
    """The sample-line name of an engine interval metric."""
    return f"{metric.name}_total" if metric.kind is MetricKind.COUNTER else metric.name
