"""The terminal text of a cassandra-stress run: engine records rendered as cassandra-stress
prints them. Pure: records in, strings out (the CLI prints them).

A header, then per interval one row per operation type (when more than one) and a
``total`` row::

    type,      total ops,    op/s,    pk/s,   row/s,    mean,     med,     .95, ...
    total,         10000,   16386,   16386,   16386,     0.6,     0.4,     1.3, ...

and a ``Results:`` block. Latencies are milliseconds and are *response* times (from the
intended start in an open loop), so queueing is never hidden; when service time differs
(open loop) the Results block adds ``Service ...`` lines. The client is not a JVM, so
the ``gc`` columns are 0 and the GC summary lines are omitted.
"""

from __future__ import annotations

import math

from pydantic import Field

from casslab.engine_contract.engine_records import IntervalRecord, OpStats, SummaryRecord
from casslab.record import Record

_PREDEFINED = {"write", "read", "counter_write", "counter_read"}
_WIDTHS = (8, 8, 8, 8, 8, 8, 8, 8, 8, 7, 9, 7, 7, 8, 8, 8, 8)
_HEADERS = (
    "op/s",
    "pk/s",
    "row/s",
    "mean",
    "med",
    ".95",
    ".99",
    ".999",
    "max",
    "time",
    "stderr",
    "errors",
    "gc: #",
    "max ms",
    "sum ms",
    "sdv ms",
    "mb",
)


class StressProgress(Record):
    """Running state between interval rows: cumulative counts and total op rates seen."""

    total_ops: dict[str, int] = Field(default_factory=dict)
    rates: list[float] = Field(default_factory=list)


def display_name(name: str) -> str:
    """cassandra-stress prints predefined operations in capitals (``WRITE``), queries as named."""
    return name.upper() if name in _PREDEFINED else name


def _first_width(names: list[str]) -> int:
    return max(10, *(len(n) + 2 for n in names)) if names else 10


def stress_header(op_names: list[str] | None = None) -> str:
    width = _first_width([display_name(n) for n in op_names or []])
    cells = "".join(f",{h:>{w}}" for h, w in zip(_HEADERS, _WIDTHS, strict=True))
    return f"{'type,':<{width}}{'total ops':>10}{cells}"


def advance(progress: StressProgress, record: IntervalRecord) -> StressProgress:
    """The progress after ``record`` (measured intervals only count)."""
    totals = dict(progress.total_ops)
    for name, stats in record.ops.items():
        totals[name] = totals.get(name, 0) + stats.count
    totals[""] = totals.get("", 0) + record.total.count
    return StressProgress(total_ops=totals, rates=[*progress.rates, record.total.op_rate])


def relative_stderr(rates: list[float]) -> float:
    """Standard error of the mean op rate relative to the mean (cassandra-stress ``stderr``)."""
    if len(rates) < 2:
        return 0.0
    mean = sum(rates) / len(rates)
    if mean <= 0:
        return 0.0
    variance = sum((r - mean) ** 2 for r in rates) / (len(rates) - 1)
    return math.sqrt(variance / len(rates)) / mean


def _row_rate(stats: OpStats, seconds: float) -> float:
    """Rows per second: rows returned by reads and scans, rows written by writes."""
    if (stats.rows or stats.not_found) and seconds > 0:
        return stats.rows / seconds
    return stats.op_rate


def _pk_rate(stats: OpStats, seconds: float) -> float:
    """Partitions per second (a batch insert may write several per operation)."""
    if stats.partitions and seconds > 0:
        return stats.partitions / seconds
    return stats.op_rate


def _total_row_rate(total: OpStats, ops: dict[str, OpStats], seconds: float) -> float:
    if not ops:
        return _row_rate(total, seconds)
    return sum(_row_rate(stats, seconds) for stats in ops.values())


def _row(
    label: str,
    width: int,
    total_ops: int,
    stats: OpStats,
    elapsed: float,
    seconds: float,
    stderr: float,
    row_rate: float | None = None,
) -> str:
    lat = stats.response
    rows = _row_rate(stats, seconds) if row_rate is None else row_rate
    values = (
        f"{stats.op_rate:.0f}",
        f"{_pk_rate(stats, seconds):.0f}",
        f"{rows:.0f}",
        f"{lat.mean_ms:.1f}",
        f"{lat.p50_ms:.1f}",
        f"{lat.p95_ms:.1f}",
        f"{lat.p99_ms:.1f}",
        f"{lat.p999_ms:.1f}",
        f"{lat.max_ms:.1f}",
        f"{elapsed:.1f}",
        f"{stderr:.5f}",
        f"{stats.errors}",
        "0",
        "0",
        "0",
        "0",
        "0",
    )
    cells = "".join(f",{v:>{w}}" for v, w in zip(values, _WIDTHS, strict=True))
    return f"{label + ',':<{width}}{total_ops:>10}{cells}"


def stress_interval_rows(record: IntervalRecord, progress: StressProgress) -> list[str]:
    """Rows for one interval; ``progress`` must already include it (see :func:`advance`)."""
    names = sorted(record.ops)
    width = _first_width([display_name(n) for n in names])
    seconds = record.t_end_s - record.t_start_s
    stderr = relative_stderr(progress.rates)
    rows = []
    if len(names) > 1:
        for name in names:
            rows.append(
                _row(
                    display_name(name),
                    width,
                    progress.total_ops.get(name, 0),
                    record.ops[name],
                    record.t_end_s,
                    seconds,
                    stderr,
                )
            )
    rows.append(
        _row(
            "total",
            width,
            progress.total_ops.get("", 0),
            record.total,
            record.t_end_s,
            seconds,
            stderr,
            row_rate=_total_row_rate(record.total, record.ops, seconds),
        )
    )
    return rows


def _per_op(summary: SummaryRecord, fmt: str, attr: str, latency: str | None = None) -> str:
    """``[READ: 1.2 ms, WRITE: 0.9 ms]``: ``attr`` of each operation's stats (or latency)."""
    parts = []
    for name in sorted(summary.ops):
        stats = summary.ops[name]
        value: float
        if latency is not None:
            value = getattr(getattr(stats, latency), attr)
        elif attr == "row_rate":
            value = _row_rate(stats, summary.duration_s)
        elif attr == "pk_rate":
            value = _pk_rate(stats, summary.duration_s)
        elif attr == "partition_count":
            value = stats.partitions or stats.count
        else:
            value = getattr(stats, attr)
        parts.append(f"{display_name(name)}: {fmt.format(value)}")
    return "[" + ", ".join(parts) + "]"


def format_hms(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def stress_results(summary: SummaryRecord) -> list[str]:
    """The ``Results:`` block (cassandra-stress 4.x layout, milliseconds)."""
    total = summary.total
    op_rates = _per_op(summary, "{:,.0f} op/s", "op_rate")
    pk_rates = _per_op(summary, "{:,.0f} pk/s", "pk_rate")
    row_rates = _per_op(summary, "{:,.0f} row/s", "row_rate")
    lines = [
        "Results:",
        f"Op rate                   : {total.op_rate:>8,.0f} op/s  {op_rates}",
        f"Partition rate            : {_pk_rate(total, summary.duration_s):>8,.0f} pk/s  "
        f"{pk_rates}",
        f"Row rate                  : "
        f"{_total_row_rate(total, summary.ops, summary.duration_s):>8,.0f} row/s "
        f"{row_rates}",
    ]
    latency_lines = (
        ("Latency mean              ", "mean_ms"),
        ("Latency median            ", "p50_ms"),
        ("Latency 95th percentile   ", "p95_ms"),
        ("Latency 99th percentile   ", "p99_ms"),
        ("Latency 99.9th percentile ", "p999_ms"),
        ("Latency max               ", "max_ms"),
    )
    for label, attr in latency_lines:
        value = getattr(total.response, attr)
        per_op = _per_op(summary, "{:.1f} ms", attr, latency="response")
        lines.append(f"{label}: {value:>8.1f} ms {per_op}")
    if total.service != total.response:
        for label, attr in latency_lines:
            service_label = label.replace("Latency", "Service")
            value = getattr(total.service, attr)
            per_op = _per_op(summary, "{:.1f} ms", attr, latency="service")
            lines.append(f"{service_label:<26}: {value:>8.1f} ms {per_op}")
    lines += [
        f"Total partitions          : {total.partitions or total.count:>10,} "
        f"{_per_op(summary, '{:,}', 'partition_count')}",
        f"Total errors              : {total.errors:>10,} {_per_op(summary, '{:,}', 'errors')}",
    ]
    if total.mismatches or any(s.mismatches for s in summary.ops.values()):
        per_op = _per_op(summary, "{:,}", "mismatches")
        lines.append(f"Validation mismatches     : {total.mismatches:>10,} {per_op}")
    if total.not_found:
        per_op = _per_op(summary, "{:,}", "not_found")
        lines.append(f"Rows not found            : {total.not_found:>10,} {per_op}")
    lines += lwt_lines(summary)
    lines += recall_lines(summary)
    lines.append(f"Total operation time      : {format_hms(summary.duration_s)}")
    return lines


def lwt_lines(summary: SummaryRecord) -> list[str]:
    """The outcomes of lightweight transactions (``[applied]`` true / false), per
    conditional operation; empty when the run had none."""
    conditional = {
        name: stats
        for name, stats in sorted(summary.ops.items())
        if stats.applied or stats.not_applied
    }
    if not conditional:
        return []
    total = summary.total
    lines = []
    for label, attr in (("LWT applied", "applied"), ("LWT not applied", "not_applied")):
        per_op = ", ".join(
            f"{display_name(name)}: {getattr(stats, attr):,}" for name, stats in conditional.items()
        )
        lines.append(f"{label:<26}: {getattr(total, attr):>10,} [{per_op}]")
    return lines


def recall_lines(summary: SummaryRecord) -> list[str]:
    """Recall@k of each ANN search that counted it (mean, p5, p1 over its queries); empty
    when the run had none."""
    lines = []
    for name, stats in sorted(summary.ops.items()):
        r = stats.recall
        unjudged = stats.recall_unjudged
        if r is None and not unjudged:
            continue
        if r is None:
            label = f"Recall {display_name(name)}"
            lines.append(f"{label:<26}: {'-':>10} (0 judged, {unjudged:,} unjudged queries)")
            continue
        label = f"Recall@{r.k} {display_name(name)}"
        counted = (
            f"{r.queries:,} judged, {unjudged:,} unjudged queries"
            if unjudged
            else f"{r.queries:,} queries"
        )
        lines.append(f"{label:<26}: {r.mean:>10.4f} mean, {r.p5:.2f} p5, {r.p1:.2f} p1 ({counted})")
    return lines


def stress_ramp(summary: SummaryRecord) -> list[str]:
    """The thread ramp, one line a step, and the best step (empty when there was no ramp)."""
    if not summary.ramp:
        return []
    lines = ["Thread ramp:", f"{'threads':>8}, {'op/s':>10}, {'p99 ms':>8}, {'errors':>7}"]
    for step in summary.ramp:
        lines.append(
            f"{step.threads:>8}, {step.op_rate:>10,.0f}, {step.p99_ms:>8.1f}, {step.errors:>7}"
        )
    if summary.best_threads is not None:
        lines.append(f"Best thread count         : {summary.best_threads}")
    return lines
