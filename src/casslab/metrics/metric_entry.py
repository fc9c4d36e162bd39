"""What one catalogue entry is (:class:`Metric`), and how a metric of one member of a
family (a table, a thread-pool stage, a message verb) is named: ``<family>/<member>``.

The entries themselves are :mod:`casslab.metrics.catalogue` (the operating system, the
process, the engine) and :mod:`casslab.metrics.catalogue_server` (what Cassandra measured
of itself: stages, caches, its own latency percentiles)."""

from __future__ import annotations

import enum

from casslab.record import Record

#: Per-member metrics carry their member after this separator: ``<family>/<member>``.
MEMBER_SEPARATOR = "/"


class MetricKind(enum.StrEnum):
    """How a metric's value relates to time."""

    GAUGE = "gauge"
    COUNTER = "counter"
    RATE = "rate"


class MetricSource(enum.StrEnum):
    """Where a metric is read from (one sampler module per source)."""

    HOST = "host"
    PROCESS = "process"
    CGROUP = "cgroup"
    NETNS = "netns"
    CQL = "cql"
    JMX = "jmx"
    ENGINE = "engine"


class Metric(Record):
    """One catalogue entry."""

    name: str
    unit: str
    kind: MetricKind
    source: MetricSource
    help: str


def entry(name: str, unit: str, kind: MetricKind, source: MetricSource, help_text: str) -> Metric:
    """One catalogue entry (positional, so that the catalogue reads as a table)."""
    return Metric(name=name, unit=unit, kind=kind, source=source, help=help_text)


def member_metric(name: str, member: str) -> str:
    """The recorded name of the metric ``name`` of one member: ``cassandra.stage_pending``
    of ``MutationStage`` -> ``cassandra.stage_pending/MutationStage``."""
    return f"{name}{MEMBER_SEPARATOR}{member}"
