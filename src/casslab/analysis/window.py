"""The engine's summary over a window of measured intervals (the steady part of a trial).

The engine summarises its whole measured phase; the steady part of a trial
(:mod:`casslab.analysis.steady`) is a later window of it. :func:`window_summary` builds
the :class:`~casslab.engine_contract.engine_records.SummaryRecord` the engine would have written for
that window: counts, errors (by kind), rows, LWT outcomes, op rate, recall and unjudged ANN
queries from the interval records, and latency (mean,
p50, p95, p99, p99.9, max; response and service time) from the trial's HdrHistogram
interval log (:mod:`casslab.engine_contract.hdr`), merged over the window's intervals. Merging
histograms is exact: the percentiles are those of every operation in the window, within
the histogram's precision, never an average of per-interval percentiles.
"""

from __future__ import annotations

from collections.abc import Sequence

from casslab.engine_contract.engine_records import (
    ErrorKind,
    IntervalRecord,
    LatencyStats,
    OpStats,
    SummaryRecord,
)
from casslab.engine_contract.hdr import SERVICE_SUFFIX, IntervalLog, latency_stats, merge, select
from casslab.engine_contract.recall import merged_recall
from casslab.errors import AnalysisError


def _latency(log: IntervalLog, tags: Sequence[str], starts: Sequence[float]) -> LatencyStats:
    return latency_stats(merge(select(log, tags=tags, starts_s=starts)))


def _op_stats(
    stats: Sequence[OpStats],
    duration_s: float,
    response: LatencyStats,
    service: LatencyStats,
    what: str,
) -> OpStats:
    count = sum(s.count for s in stats)
    if response.count != count:
        raise AnalysisError(
            f"latency of {what} over the window: the HdrHistogram log holds {response.count} "
            f"of its {count} operations (a line is missing or the log was cut); use the "
            "engine summary instead"
        )
    return OpStats(
        count=count,
        errors=sum(s.errors for s in stats),
        op_rate=count / duration_s if duration_s > 0 else 0.0,
        rows=sum(s.rows for s in stats),
        partitions=sum(s.partitions for s in stats),
        not_found=sum(s.not_found for s in stats),
        mismatches=sum(s.mismatches for s in stats),
        applied=sum(s.applied for s in stats),
        not_applied=sum(s.not_applied for s in stats),
        errors_by_kind=_errors_by_kind(stats),
        response=response,
        service=service,
        recall=merged_recall([s.recall for s in stats]),
        recall_unjudged=sum(s.recall_unjudged for s in stats),
    )


def _errors_by_kind(stats: Sequence[OpStats]) -> dict[ErrorKind, int]:
    """The errors by kind of the window's intervals, summed (kinds with a count only)."""
    by_kind: dict[ErrorKind, int] = {}
    for s in stats:
        for kind, n in s.errors_by_kind.items():
            by_kind[kind] = by_kind.get(kind, 0) + n
    return {kind: by_kind[kind] for kind in ErrorKind if by_kind.get(kind)}


def window_summary(
    intervals: Sequence[IntervalRecord], log: IntervalLog, *, engine_version: str = ""
) -> SummaryRecord:
    """The summary of ``intervals`` (one window of a trial) with latency from ``log``.

    ``log`` is the trial's interval log: the engine writes one response line (tag = the
    operation name) and one ``<op>.service`` line per operation and interval, with the
    interval's start in seconds since the engine started, as in the interval records.
    Raises :class:`~casslab.errors.AnalysisError` when there is no interval, or when the
    log's histograms do not hold every operation of the window.
    """
    if not intervals:
        raise AnalysisError("summary of a window: it holds no interval; give at least one")
    starts = [i.t_start_s for i in intervals]
    duration_s = sum(i.t_end_s - i.t_start_s for i in intervals)
    names = sorted({name for i in intervals for name in i.ops})
    ops = {
        name: _op_stats(
            [i.ops[name] for i in intervals if name in i.ops],
            duration_s,
            _latency(log, [name], starts),
            _latency(log, [name + SERVICE_SUFFIX], starts),
            f"operation {name!r}",
        )
        for name in names
    }
    total = _op_stats(
        [i.total for i in intervals],
        duration_s,
        _latency(log, names, starts),
        _latency(log, [name + SERVICE_SUFFIX for name in names], starts),
        "all operations",
    )
    return SummaryRecord(duration_s=duration_s, total=total, ops=ops, engine_version=engine_version)
