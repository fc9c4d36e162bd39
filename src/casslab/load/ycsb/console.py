"""The terminal text of a YCSB run: ``[OVERALL], RunTime(ms), ...``, ``[OVERALL],
Throughput(ops/sec), ...`` and per operation ``[READ], Operations, ...`` with latencies in
microseconds, plus ``-s`` status lines. Pure: records in, strings out (the CLI prints them).
"""

from __future__ import annotations

from casslab.engine_contract.engine_records import IntervalRecord, SummaryRecord


def _us(ms: float) -> int:
    return round(ms * 1000)


def ycsb_summary(summary: SummaryRecord) -> list[str]:
    """``[OVERALL]`` and per-operation lines, latencies in microseconds. As in YCSB,
    ``Operations`` and the throughput count every operation done, failed ones too
    (``Return=ERROR``); the engine's ``count`` is the successful ones (``Return=OK``)."""
    runtime_ms = summary.duration_s * 1000
    done = summary.total.count + summary.total.errors
    throughput = done / summary.duration_s if summary.duration_s > 0 else 0.0
    lines = [
        f"[OVERALL], RunTime(ms), {runtime_ms:.0f}",
        f"[OVERALL], Throughput(ops/sec), {throughput}",
    ]
    for name in sorted(summary.ops):
        stats = summary.ops[name]
        lat = stats.response
        lines += [
            f"[{name}], Operations, {stats.count + stats.errors}",
            f"[{name}], AverageLatency(us), {lat.mean_ms * 1000}",
            f"[{name}], MaxLatency(us), {_us(lat.max_ms)}",
            f"[{name}], 50thPercentileLatency(us), {_us(lat.p50_ms)}",
            f"[{name}], 95thPercentileLatency(us), {_us(lat.p95_ms)}",
            f"[{name}], 99thPercentileLatency(us), {_us(lat.p99_ms)}",
            f"[{name}], 99.9thPercentileLatency(us), {_us(lat.p999_ms)}",
            f"[{name}], Return=OK, {stats.count}",
        ]
        if stats.errors:
            lines.append(f"[{name}], Return=ERROR, {stats.errors}")
        if stats.service != stats.response:
            lines.append(
                f"[{name}], ServiceTime99thPercentileLatency(us), {_us(stats.service.p99_ms)}"
            )
    return lines


def ycsb_status(record: IntervalRecord, total_ops: int) -> str:
    """A ``-s`` status line: ``10 sec: 1234 operations; 123.4 current ops/sec; [READ: ...]``."""
    parts = []
    for name in sorted(record.ops):
        stats = record.ops[name]
        lat = stats.response
        parts.append(
            f"[{name}: Count={stats.count}, Max={_us(lat.max_ms)}, Avg={lat.mean_ms * 1000:.2f}, "
            f"95={_us(lat.p95_ms)}, 99={_us(lat.p99_ms)}, 99.9={_us(lat.p999_ms)}]"
        )
    return (
        f"{record.t_end_s:.0f} sec: {total_ops} operations; "
        f"{record.total.op_rate:.2f} current ops/sec; {' '.join(parts)}".rstrip()
    )
