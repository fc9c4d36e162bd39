"""What each fault did to the load, from the engine's per-second intervals (pure).

Times are seconds of the measured phase (its first interval starts at 0). A fault's window
runs from when its node was put under it to when the node was back (a killed node: started
and ready again; the phase's end when it never came back). Before the fault, the
:data:`BEFORE_S` seconds give the level the load should return to: their op rate (mean)
and p99 (median of the intervals' p99s: a percentile of percentiles would need their
histograms, and the median resists one slow second). The load has recovered at the end of
the first interval after the window whose op rate is within :data:`RATE_TOLERANCE` of that
level and whose p99 is under :data:`P99_FACTOR` times it (an open-loop engine's response
times include the backlog the fault built, so p99 recovers only once it has drained).

Errors are also counted by kind (:class:`~casslab.engine_contract.engine_records.ErrorKind`:
unavailable, write/read timeouts, ...), each kind's share of an interval counted as its errors are;
the KPIs ``fault_unavailable`` and ``fault_timeouts`` (write, read and client timeouts)
come from them.

An operation's window (restart, repair, ...: :mod:`casslab.faults.operation`) runs from
its start to its end; it also carries its steps per node and the p99 during it (the
median and the highest of the intervals' p99s), and its KPIs are the ``operation_*`` ones
(:func:`operation_kpis`), apart from the faults'.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from pydantic import Field

from casslab.engine_contract.engine_records import TIMEOUT_KINDS, ErrorKind, IntervalRecord
from casslab.faults.operation import OperationStep
from casslab.faults.timeline import FaultRecord
from casslab.record import Record

BEFORE_S = 10.0
RATE_TOLERANCE = 0.05
P99_FACTOR = 1.2


class FaultWindow(Record):
    """One fault's effect on the load."""

    kind: str
    target: int | str
    start_s: float
    end_s: float
    back: bool  # the node came back within the phase
    ops: int
    errors: int
    # errors by kind of their final error (kinds with a count; each rounded on its own)
    errors_by_kind: dict[ErrorKind, int] = Field(default_factory=dict)
    op_rate: float
    before_op_rate: float | None
    before_p99_ms: float | None
    recovery_s: float | None  # None: the load did not recover (or there was no level before)
    detected_s: float | None = None  # from its start until another node marked it down
    p99_ms: float | None = None  # median of the p99s of the seconds inside the window
    worst_p99_ms: float | None = None  # the highest of them
    operation: bool = False  # an operation's window: it ended when the operation did
    error: str | None = None  # why the operation failed
    steps: list[OperationStep] = Field(default_factory=list)  # an operation's, per node


def _phase(intervals: Sequence[IntervalRecord]) -> list[IntervalRecord]:
    """The measured intervals with times counted from the first one's start."""
    measured = [r for r in intervals if r.phase == "measure"]
    if not measured:
        return []
    zero = measured[0].t_start_s
    return [
        r.model_copy(update={"t_start_s": r.t_start_s - zero, "t_end_s": r.t_end_s - zero})
        for r in measured
    ]


def _overlap(record: IntervalRecord, start: float, end: float) -> float:
    """The share of ``record`` inside [start, end)."""
    length = record.t_end_s - record.t_start_s
    if length <= 0:
        return 0.0
    inside = min(record.t_end_s, end) - max(record.t_start_s, start)
    return max(0.0, inside) / length


def window(record: FaultRecord, intervals: Sequence[IntervalRecord]) -> FaultWindow | None:
    """The effect of one fault (None when it never began)."""
    phase = _phase(intervals)
    if record.began_s is None or not phase:
        return None
    start = record.began_s
    back = record.ended_s is not None
    end = record.ended_s if record.ended_s is not None else phase[-1].t_end_s
    shares = [(r, _overlap(r, start, end)) for r in phase]
    ops = round(sum(r.total.count * share for r, share in shares))
    errors = round(sum(r.total.errors * share for r, share in shares))
    by_kind = {
        kind: round(sum(r.total.errors_by_kind.get(kind, 0) * share for r, share in shares))
        for kind in ErrorKind
    }
    before = [r for r in phase if r.t_end_s <= start + 1e-6 and r.t_start_s >= start - BEFORE_S]
    rate = statistics.fmean(r.total.op_rate for r in before) if before else None
    p99s = [r.total.response.p99_ms for r in before if r.total.count > 0]
    p99 = statistics.median(p99s) if p99s else None
    recovery = None
    if back and rate is not None and p99 is not None:
        for r in phase:
            if r.t_start_s < end - 1e-6:
                continue
            good_rate = r.total.op_rate >= (1 - RATE_TOLERANCE) * rate
            if good_rate and r.total.response.p99_ms <= P99_FACTOR * p99:
                recovery = r.t_end_s - end
                break
    length = max(end - start, 1e-9)
    during = [r.total.response.p99_ms for r, share in shares if share > 0 and r.total.count]
    return FaultWindow(
        kind=str(record.kind),
        target=record.target,
        start_s=start,
        end_s=end,
        back=back,
        ops=ops,
        errors=errors,
        errors_by_kind={kind: n for kind, n in by_kind.items() if n > 0},
        op_rate=ops / length,
        before_op_rate=rate,
        before_p99_ms=p99,
        recovery_s=recovery,
        detected_s=None if record.marked_down_s is None else record.marked_down_s - start,
        p99_ms=statistics.median(during) if during else None,
        worst_p99_ms=max(during) if during else None,
        operation=record.operation,
        error=record.error if record.operation else None,
        steps=record.steps,
    )


def fault_kpis(windows: Sequence[FaultWindow]) -> dict[str, float | None]:
    """The trial's fault KPIs (empty without a fault that began) and its operations'
    (:func:`operation_kpis`)."""
    kpis = operation_kpis([w for w in windows if w.operation])
    windows = [w for w in windows if not w.operation]
    if not windows:
        return kpis
    total_s = sum(w.end_s - w.start_s for w in windows)
    recovered = [w.recovery_s for w in windows if w.recovery_s is not None]
    detected = [w.detected_s for w in windows if w.detected_s is not None]
    return kpis | {
        "fault_detect_s": max(detected) if detected else None,
        "fault_errors": float(sum(w.errors for w in windows)),
        "fault_unavailable": float(
            sum(w.errors_by_kind.get(ErrorKind.UNAVAILABLE, 0) for w in windows)
        ),
        "fault_timeouts": float(
            sum(n for w in windows for k, n in w.errors_by_kind.items() if k in TIMEOUT_KINDS)
        ),
        "fault_op_rate": sum(w.ops for w in windows) / total_s if total_s > 0 else None,
        "fault_recovery_s": max(recovered) if recovered else None,
        "faults_unrecovered": float(len(windows) - len(recovered)),
    }


def operation_kpis(windows: Sequence[FaultWindow]) -> dict[str, float | None]:
    """The trial's operation KPIs (empty without an operation): their time, errors (all,
    unavailable, timeouts), op rate during them, the p99 during them against the
    :data:`BEFORE_S` before (the highest of each), the longest recovery, and how many
    failed or never recovered."""
    if not windows:
        return {}
    total_s = sum(w.end_s - w.start_s for w in windows)
    recovered = [w.recovery_s for w in windows if w.recovery_s is not None]
    p99 = [w.worst_p99_ms for w in windows if w.worst_p99_ms is not None]
    before = [w.before_p99_ms for w in windows if w.before_p99_ms is not None]
    return {
        "operation_s": total_s,
        "operation_errors": float(sum(w.errors for w in windows)),
        "operation_unavailable": float(
            sum(w.errors_by_kind.get(ErrorKind.UNAVAILABLE, 0) for w in windows)
        ),
        "operation_timeouts": float(
            sum(n for w in windows for k, n in w.errors_by_kind.items() if k in TIMEOUT_KINDS)
        ),
        "operation_op_rate": sum(w.ops for w in windows) / total_s if total_s > 0 else None,
        "operation_p99_ms": max(p99) if p99 else None,
        "operation_before_p99_ms": max(before) if before else None,
        "operation_recovery_s": max(recovered) if recovered else None,
        "operations_failed": float(sum(1 for w in windows if w.error is not None)),
        "operations_unrecovered": float(len(windows) - len(recovered)),
    }
