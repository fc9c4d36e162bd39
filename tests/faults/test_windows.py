"""What a fault did to the load, from per-second intervals: its window's operations,
errors and rate, the level before it, and when the load was back at that level."""

from __future__ import annotations

from casslab.engine_contract.engine_records import ErrorKind, IntervalRecord, LatencyStats, OpStats
from casslab.faults.operation import OperationStep
from casslab.faults.timeline import FaultRecord
from casslab.faults.windows import fault_kpis, window


def _interval(
    t: float,
    ops: int,
    errors: int = 0,
    p99: float = 10.0,
    kinds: dict[ErrorKind, int] | None = None,
) -> IntervalRecord:
    latency = LatencyStats(
        count=ops,
        mean_ms=p99 / 2,
        p50_ms=p99 / 2,
        p95_ms=p99,
        p99_ms=p99,
        p999_ms=p99,
        max_ms=p99,
    )
    stats = OpStats(
        count=ops,
        errors=errors,
        errors_by_kind=kinds
        if kinds is not None
        else ({ErrorKind.CONNECTION: errors} if errors else {}),
        rows=ops,
        partitions=ops,
        not_found=0,
        mismatches=0,
        op_rate=float(ops),
        response=latency,
        service=latency,
    )
    return IntervalRecord(t_start_s=t, t_end_s=t + 1, threads=8, total=stats, ops={})


# 5 s warm-up (not measured), then: 10 s at 100/s, 4 s down (errors), 3 s of backlog
# (rate above, p99 high), then 100/s again
RECORDS = (
    [_interval(t, 100).model_copy(update={"phase": "warmup"}) for t in range(5)]
    + [_interval(5 + t, 100) for t in range(10)]
    + [_interval(15 + t, 0, errors=5) for t in range(4)]
    + [_interval(19 + t, 180, p99=900.0) for t in range(3)]
    + [_interval(22 + t, 100, p99=11.0) for t in range(5)]
)


def _record(began: float | None, ended: float | None) -> FaultRecord:
    return FaultRecord(
        kind="kill",
        target=2,
        planned_at_s=10,
        planned_for_s=4,
        began_s=began,
        ended_s=ended,
    )


def test_the_window_the_level_before_and_the_recovery() -> None:
    got = window(_record(10.0, 14.0), RECORDS)  # phase time: the first measured interval is 0
    assert got is not None
    assert (got.ops, got.errors, got.op_rate) == (0, 20, 0.0)
    assert got.before_op_rate == 100.0
    assert got.before_p99_ms == 10.0
    assert got.recovery_s == 4.0  # the backlog's 3 s, then the first good second ends
    kpis = fault_kpis([got])
    assert kpis == {
        "fault_detect_s": None,  # nobody watched: no failure detector's time
        "fault_errors": 20.0,
        "fault_unavailable": 0.0,  # a killed coordinator: its connections broke
        "fault_timeouts": 0.0,
        "fault_op_rate": 0.0,
        "fault_recovery_s": 4.0,
        "faults_unrecovered": 0.0,
    }


def test_a_node_that_never_came_back_and_a_fault_that_never_began() -> None:
    got = window(_record(10.0, None), RECORDS)
    assert got is not None
    assert got.back is False
    assert got.end_s == 22.0  # the phase's end
    assert got.recovery_s is None
    assert fault_kpis([got])["faults_unrecovered"] == 1.0
    assert window(_record(None, None), RECORDS) is None
    assert fault_kpis([]) == {}


def test_the_time_until_another_node_marked_it_down() -> None:
    record = _record(10.0, 14.0).model_copy(update={"marked_down_s": 13.5, "marked_up_s": 15.0})
    got = window(record, RECORDS)
    assert got is not None
    assert got.detected_s == 3.5
    assert fault_kpis([got])["fault_detect_s"] == 3.5


def test_errors_by_kind_in_the_window_and_their_kpis() -> None:
    """A paused replica at ALL: the first second's writes time out at the replicas, the
    client gives up on some, then the coordinator knows the node down (unavailable). Half
    of the second interval lies in the window: half of each of its kinds counts."""
    timeout, client = ErrorKind.WRITE_TIMEOUT, ErrorKind.CLIENT_TIMEOUT
    unavailable = ErrorKind.UNAVAILABLE
    records = (
        [_interval(t, 100) for t in range(10)]
        + [_interval(10, 20, errors=80, kinds={timeout: 60, client: 20})]
        + [_interval(11, 0, errors=100, kinds={unavailable: 100})]
        + [_interval(12 + t, 100) for t in range(3)]
    )
    got = window(_record(10.0, 11.5), records)
    assert got is not None
    assert got.errors == 80 + 50
    assert got.errors_by_kind == {timeout: 60, client: 20, unavailable: 50}
    kpis = fault_kpis([got, got])
    assert kpis["fault_unavailable"] == 100.0
    assert kpis["fault_timeouts"] == 160.0
    assert kpis["fault_errors"] == 260.0


def test_an_operation_window_its_steps_and_its_own_kpis() -> None:
    steps = [
        OperationStep(node=2, step="drain", start_s=10.0, duration_s=1.0),
        OperationStep(node=2, step="stop", start_s=11.0, duration_s=0.5),
        OperationStep(node=2, step="start", start_s=11.5, duration_s=2.5),
    ]
    record = _record(10.0, 14.0).model_copy(
        update={"kind": "restart", "planned_for_s": None, "operation": True, "steps": steps}
    )
    got = window(record, RECORDS)
    assert got is not None
    assert (got.operation, got.steps, got.error) == (True, steps, None)
    assert (got.p99_ms, got.worst_p99_ms) == (None, None)  # no operation completed in it
    late = window(record.model_copy(update={"began_s": 13.5, "ended_s": 16.0}), RECORDS)
    assert late is not None  # its seconds with operations done: 14 and 15 (900 ms)
    assert (late.p99_ms, late.worst_p99_ms) == (900.0, 900.0)
    assert window(record.model_copy(update={"ended_s": 18.0}), RECORDS) is not None
    kill = window(_record(11.0, 13.0), RECORDS)
    assert kill is not None
    kpis = fault_kpis([got, kill])
    # the kill alone makes the fault KPIs; the restart the operation ones
    assert kpis["fault_errors"] == 10.0
    assert kpis["fault_op_rate"] == 0.0
    assert {k: v for k, v in kpis.items() if k.startswith("operation")} == {
        "operation_s": 4.0,
        "operation_errors": 20.0,
        "operation_unavailable": 0.0,
        "operation_timeouts": 0.0,
        "operation_op_rate": 0.0,
        "operation_p99_ms": None,
        "operation_before_p99_ms": 10.0,
        "operation_recovery_s": 4.0,
        "operations_failed": 0.0,
        "operations_unrecovered": 0.0,
    }
