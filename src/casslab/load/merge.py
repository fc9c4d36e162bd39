"""Merge the output of several load clients into one run, exactly (pure).

Each client is one engine run: its :class:`~casslab.load.engine.EngineResult` (interval
records, summary, error samples) and its HDR interval log, whose ``BaseTime`` places its
intervals on the wall clock. The merge (docs/clients.md):

* **alignment**: ``T0`` is the earliest start of any client's first measured interval; the
  merged intervals are the slots ``[T0 + k·I, T0 + (k+1)·I)`` (``I`` = ``interval_s``), and
  each client interval goes, whole, to the slot whose start is nearest its own start. So
  an interval lands at most ``I/2`` from where it ran (plus the clients' clock offset when
  they run on several hosts); the largest offset is reported (``max_offset_s``). Counts
  and histograms are exact whatever the offsets: alignment only decides *when* an
  operation is shown, never whether or how often.
* **counts** (operations, errors and errors by kind, rows, partitions, not found,
  mismatches, ANN queries by recall hits) and **op rates** are summed, as are threads;
* the **read-back of acknowledged writes** (``verify``): each client verifies the keys it
  wrote (the clients' shares are disjoint), so ``checked``, ``lost`` and ``errors`` are
  summed; its duration is the longest client's. A client without one (not asked, or
  interrupted) leaves the merged run without one: a partial count would pass for a whole;
* **latency** of an interval, an operation or the run is computed from the merge of the
  clients' histograms (bucket counts added, :func:`casslab.engine_contract.hdr.merge`), never
  from the clients' percentiles;
* a client whose HDR log does not hold exactly the operations its records count is not
  merged: it is listed in ``failed`` with the reason, as a client that exited non-zero,
  wrote a fatal error or no output (found by the launcher) is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field

from casslab.engine_contract.engine_records import (
    ErrorKind,
    ErrorRecord,
    IntervalRecord,
    OpStats,
    SummaryRecord,
    VerifyStats,
)
from casslab.engine_contract.hdr import (
    SERVICE_SUFFIX,
    Histogram,
    IntervalLog,
    latency_stats,
    merge,
)
from casslab.engine_contract.hdr_encode import LogLine, interval_log_text, log_tag
from casslab.engine_contract.recall import merged_recall
from casslab.errors import AnalysisError
from casslab.load.engine import EngineResult
from casslab.record import Record

SCHEMA_VERSION: Literal[1] = 1
START_TOLERANCE_S = 0.0015  # an interval record's start vs its log line's (3 decimals)
WRITER = "casslab merged latency log of {n} load clients"
_SUMMED = (
    "count",
    "errors",
    "rows",
    "partitions",
    "not_found",
    "mismatches",
    "applied",
    "not_applied",
    "recall_unjudged",
)


class ClientFailure(Record):
    """A client whose output is not in the merge, and why."""

    client: str
    reason: str
    stderr_tail: str = ""


class ClientLine(Record):
    """One client's share of the merged run (its own summary's figures)."""

    client: str
    ops: int
    op_rate: float
    errors: int


class MergedRun(Record):
    """The merged result of a multi-client run.

    ``summary`` is None when no client finished. ``base_time_s`` is the Unix time the
    intervals' ``t_start_s`` count from (the merged log's ``BaseTime``).
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    clients: list[ClientLine] = Field(default_factory=list)
    failed: list[ClientFailure] = Field(default_factory=list)
    intervals: list[IntervalRecord] = Field(default_factory=list)
    summary: SummaryRecord | None = None
    errors: list[ErrorRecord] = Field(default_factory=list)
    base_time_s: float | None = None
    interval_s: float
    max_offset_s: float = 0.0


@dataclass(frozen=True)
class ClientOutput:
    """What one finished client produced: its records and its parsed HDR log."""

    client: str
    result: EngineResult
    log: IntervalLog


@dataclass(frozen=True)
class Merged:
    """The merged run and its merged HDR interval log (text)."""

    run: MergedRun
    hlog: str


@dataclass
class _Slot:
    start_s: float  # absolute (Unix seconds)
    length_s: float = 0.0
    records: list[IntervalRecord] = field(default_factory=list)
    histograms: dict[str, list[Histogram]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Placed:
    """A client's measured interval with its absolute start and its histograms by tag."""

    start_s: float
    record: IntervalRecord
    histograms: Mapping[str, Histogram]


# ---------------------------------------------------------------- checks per client


def _placed(output: ClientOutput) -> list[_Placed]:
    """The client's measured intervals, each with its log lines; raises AnalysisError when
    the log and the records disagree (a line without a record, a count that differs)."""
    base = output.log.base_time_s
    if base is None:
        raise AnalysisError("its HDR log has no BaseTime / StartTime header")
    by_ms: dict[int, list[int]] = {}
    for i, line in enumerate(output.log.intervals):
        by_ms.setdefault(round(line.start_s * 1000), []).append(i)
    used = [False] * len(output.log.intervals)
    placed: list[_Placed] = []
    for record in output.result.intervals:
        if record.phase != "measure":
            continue
        histograms: dict[str, Histogram] = {}
        ms = round(record.t_start_s * 1000)
        for i in (*by_ms.get(ms - 1, ()), *by_ms.get(ms, ()), *by_ms.get(ms + 1, ())):
            line = output.log.intervals[i]
            near = abs(line.start_s - record.t_start_s) <= START_TOLERANCE_S
            if near and not used[i] and line.tag is not None and line.tag not in histograms:
                used[i] = True
                histograms[line.tag] = line.histogram
        for name, stats in record.ops.items():
            for tag in (log_tag(name), log_tag(name) + SERVICE_SUFFIX):
                logged = histograms[tag].total_count if tag in histograms else 0
                if logged != stats.count:
                    raise AnalysisError(
                        f"its HDR log holds {logged} {tag} value(s) at {record.t_start_s:.3f} s"
                        f" where its interval record counts {stats.count}"
                    )
        placed.append(
            _Placed(start_s=base + record.t_start_s, record=record, histograms=histograms)
        )
    if not all(used):
        stray = output.log.intervals[used.index(False)]
        raise AnalysisError(
            f"its HDR log has a {stray.tag} line at {stray.start_s:.3f} s that no measured "
            "interval record matches"
        )
    counted = sum(p.record.total.count for p in placed)
    if counted != output.result.summary.total.count:
        raise AnalysisError(
            f"its measured intervals count {counted} operations, its summary "
            f"{output.result.summary.total.count}"
        )
    return placed


# ---------------------------------------------------------------- sums


def _sum_stats(
    stats: Sequence[OpStats], response: Histogram | None, service: Histogram | None
) -> OpStats:
    sums = {name: sum(getattr(s, name) for s in stats) for name in _SUMMED}
    by_kind: dict[ErrorKind, int] = {}
    for s in stats:
        for kind, n in s.errors_by_kind.items():
            by_kind[kind] = by_kind.get(kind, 0) + n
    return OpStats(
        **sums,
        errors_by_kind={k: by_kind[k] for k in ErrorKind if by_kind.get(k)},
        op_rate=sum(s.op_rate for s in stats),
        response=latency_stats(response),
        service=latency_stats(service),
        recall=merged_recall([s.recall for s in stats]),
    )


def _merged_ops(
    totals: Sequence[OpStats],
    per_client: Sequence[Mapping[str, OpStats]],
    histograms: Mapping[str, Sequence[Histogram]],
) -> tuple[OpStats, dict[str, OpStats]]:
    """In total and per operation: summed counts and rates, latency from the merged
    histograms (all operations' for the total)."""
    names: dict[str, None] = {}
    for ops in per_client:
        names.update(dict.fromkeys(ops))
    by_name: dict[str, OpStats] = {}
    for name in names:
        by_name[name] = _sum_stats(
            [ops[name] for ops in per_client if name in ops],
            merge(histograms.get(log_tag(name), ())),
            merge(histograms.get(log_tag(name) + SERVICE_SUFFIX, ())),
        )
    tags = {log_tag(name): None for name in names}
    response = [h for tag in tags for h in histograms.get(tag, ())]
    service = [h for tag in tags for h in histograms.get(tag + SERVICE_SUFFIX, ())]
    return _sum_stats(totals, merge(response), merge(service)), by_name


# ---------------------------------------------------------------- the merge


def _slots(placed: Mapping[str, list[_Placed]], interval_s: float) -> tuple[list[_Slot], float]:
    firsts = [p[0].start_s for p in placed.values() if p]
    if not firsts:
        return [], 0.0
    t0 = min(firsts)
    slots: dict[int, _Slot] = {}
    worst = 0.0
    for intervals in placed.values():
        for item in intervals:
            k = round((item.start_s - t0) / interval_s)
            slot = slots.setdefault(k, _Slot(start_s=t0 + k * interval_s))
            worst = max(worst, abs(item.start_s - slot.start_s))
            record = item.record
            slot.length_s = max(slot.length_s, record.t_end_s - record.t_start_s)
            slot.records.append(record)
            for tag, histogram in item.histograms.items():
                slot.histograms.setdefault(tag, []).append(histogram)
    return [slots[k] for k in sorted(slots)], worst


def _interval(slot: _Slot, base_s: float) -> IntervalRecord:
    total, ops = _merged_ops(
        [r.total for r in slot.records], [r.ops for r in slot.records], slot.histograms
    )
    start = slot.start_s - base_s
    return IntervalRecord(
        phase="measure",
        t_start_s=start,
        t_end_s=start + slot.length_s,
        threads=sum(r.threads for r in slot.records),
        total=total,
        ops=ops,
    )


def _log_lines(slots: Sequence[_Slot], base_s: float) -> Iterable[LogLine]:
    for slot in slots:
        for tag, histograms in slot.histograms.items():
            merged = merge(histograms)
            assert merged is not None  # a tag is only there with a histogram
            yield LogLine(
                tag=tag, start_s=slot.start_s - base_s, length_s=slot.length_s, histogram=merged
            )


def _summary(outputs: Sequence[ClientOutput], slots: Sequence[_Slot]) -> SummaryRecord:
    histograms: dict[str, list[Histogram]] = {}
    for slot in slots:
        for tag, hs in slot.histograms.items():
            histograms.setdefault(tag, []).extend(hs)
    summaries = [o.result.summary for o in outputs]
    total, ops = _merged_ops([s.total for s in summaries], [s.ops for s in summaries], histograms)
    if slots:
        duration = max(s.start_s + s.length_s for s in slots) - slots[0].start_s
    else:
        duration = max(o.result.summary.duration_s for o in outputs)
    return SummaryRecord(
        duration_s=duration,
        total=_over(total, duration),
        ops={name: _over(stats, duration) for name, stats in ops.items()},
        engine_version=outputs[0].result.summary.engine_version,
        verify=merge_verify([s.verify for s in summaries]),
    )


def merge_verify(parts: Sequence[VerifyStats | None]) -> VerifyStats | None:
    """The clients' read-backs as one: counts summed, the longest duration; None when any
    client has none (or they read at different consistency levels, which one spec cannot
    ask)."""
    if not parts or any(p is None for p in parts):
        return None
    done = [p for p in parts if p is not None]
    if len({p.consistency for p in done}) != 1:
        return None
    return VerifyStats(
        consistency=done[0].consistency,
        checked=sum(p.checked for p in done),
        lost=sum(p.lost for p in done),
        errors=sum(p.errors for p in done),
        duration_s=max(p.duration_s for p in done),
    )


def _over(stats: OpStats, duration_s: float) -> OpStats:
    """``stats`` with the rate of the whole merged run: its operations over the time from
    the first client's start to the last one's end (the sum of the clients' own rates
    would count clients that did not overlap as if they had)."""
    if duration_s <= 0:
        return stats
    return stats.model_copy(update={"op_rate": stats.count / duration_s})


def merge_clients(
    outputs: Sequence[ClientOutput],
    failed: Sequence[ClientFailure],
    *,
    interval_s: float,
) -> Merged:
    """The merged run of ``outputs`` (finished clients) and the merged HDR log text;
    ``failed`` (clients the launcher found failed) is carried into the result, with the
    clients whose log and records disagree added to it."""
    failures = list(failed)
    placed: dict[str, list[_Placed]] = {}
    good: list[ClientOutput] = []
    for output in outputs:
        try:
            placed[output.client] = _placed(output)
        except AnalysisError as problem:
            failures.append(ClientFailure(client=output.client, reason=str(problem)))
            continue
        good.append(output)
    bases = [o.log.base_time_s for o in good if o.log.base_time_s is not None]
    base = min(bases) if bases else None
    slots, worst = _slots(placed, interval_s)
    lines = [
        ClientLine(
            client=o.client,
            ops=o.result.summary.total.count,
            op_rate=o.result.summary.total.op_rate,
            errors=o.result.summary.total.errors,
        )
        for o in good
    ]
    errors = [
        e.model_copy(update={"message": f"{o.client}: {e.message}"})
        for o in good
        for e in o.result.errors
    ]
    if base is None:
        run = MergedRun(clients=lines, failed=failures, errors=errors, interval_s=interval_s)
        return Merged(run=run, hlog="")
    run = MergedRun(
        clients=lines,
        failed=failures,
        intervals=[_interval(s, base) for s in slots],
        summary=_summary(good, slots),
        errors=errors,
        base_time_s=base,
        interval_s=interval_s,
        max_offset_s=worst,
    )
    text = interval_log_text(base, _log_lines(slots, base), writer=WRITER.format(n=len(good)))
    return Merged(run=run, hlog=text)
