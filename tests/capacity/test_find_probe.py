"""The engine side of a search, on literal engine records: a run's measure from its summary
or (stopped at its deadline) its intervals, the check that reads find data, the closed-loop
ramp's result, and the check that a node answers."""

from __future__ import annotations

import socket
from typing import Literal

import pytest

from casslab.capacity.probe import (
    check_data,
    check_reachable,
    probe_from_intervals,
    probe_from_summary,
    split_host_port,
)
from casslab.capacity.probe_spec import parse_command
from casslab.capacity.ramp import ramp_result
from casslab.engine_contract.engine_records import (
    IntervalRecord,
    LatencyStats,
    OpStats,
    RampStep,
    SummaryRecord,
)
from casslab.engine_contract.recall import recall_stats
from casslab.errors import ClusterError


def latency(p50: float, p99: float, p999: float) -> LatencyStats:
    return LatencyStats(
        count=1, mean_ms=p50, p50_ms=p50, p95_ms=p99, p99_ms=p99, p999_ms=p999, max_ms=p999
    )


def stats(count: int, errors: int = 0, p99: float = 4.0, not_found: int = 0) -> OpStats:
    return OpStats(
        count=count,
        errors=errors,
        op_rate=count / 10.0,
        not_found=not_found,
        response=latency(1.0, p99, p99 * 2),
        service=latency(0.5, p99 / 2, p99),
    )


def summary(
    ops: dict[str, OpStats], ramp: list[RampStep] | None = None, best: int | None = None
) -> SummaryRecord:
    total = stats(sum(s.count for s in ops.values()), sum(s.errors for s in ops.values()))
    return SummaryRecord(
        duration_s=10.02,
        total=total,
        ops=ops,
        ramp=ramp or [],
        best_threads=best,
        engine_version="test",
    )


def interval(
    phase: Literal["warmup", "measure", "ramp"], start: float, count: int, p99: float
) -> IntervalRecord:
    return IntervalRecord(
        phase=phase,
        t_start_s=start,
        t_end_s=start + 1.0,
        threads=64,
        total=stats(count, p99=p99),
        ops={},
    )


def test_a_finished_run_is_measured_by_its_summary() -> None:
    probe = probe_from_summary(2000.0, summary({"write": stats(20_000, errors=3)}), "write: t/o")
    assert (probe.rate_asked_per_s, probe.rate_achieved_per_s) == (2000.0, 2000.0)
    assert (probe.ops, probe.errors, probe.duration_s) == (20_000, 3, 10.02)
    assert (probe.p50_ms, probe.p99_ms, probe.p999_ms) == (1.0, 4.0, 8.0)
    assert not probe.truncated
    assert probe.first_error == "write: t/o"
    empty = probe_from_summary(2000.0, summary({"write": stats(0, errors=5)}), None)
    assert empty.p99_ms is None  # nothing succeeded: no latency


def test_a_run_stopped_at_its_deadline_counts_its_measured_intervals() -> None:
    intervals = [
        interval("warmup", 0.0, 900, 3.0),
        interval("measure", 1.0, 800, 40.0),
        interval("measure", 2.0, 700, 900.0),
    ]
    probe = probe_from_intervals(2000.0, intervals, None)
    assert probe.truncated
    assert (probe.ops, probe.duration_s, probe.rate_achieved_per_s) == (1500, 2.0, 750.0)
    assert probe.p99_ms == 900.0  # the worst interval: a bound from below
    stuck = probe_from_intervals(2000.0, [interval("warmup", 0.0, 10, 70.0)], None)
    assert (stuck.ops, stuck.p99_ms) == (0, 70.0)
    assert probe_from_intervals(2000.0, [], None).p99_ms is None


def test_reads_that_find_nothing_stop_the_search() -> None:
    command = parse_command(["mixed", "ratio(write=1,read=1)"], contact_points=["h:9042"])
    check_data(command, summary({"read": stats(100, not_found=50), "write": stats(100)}))
    with pytest.raises(ClusterError) as caught:
        check_data(command, summary({"read": stats(100, not_found=51), "write": stats(100)}))
    assert "51 of 100 reads found no row" in str(caught.value)
    assert "--preload 'write -pop seq=1..N ...'" in str(caught.value)


def test_the_ramp_result_is_the_best_step_and_the_best_under_the_slo() -> None:
    steps = [
        RampStep(threads=4, op_rate=3000.0, p99_ms=2.0, errors=0),
        RampStep(threads=8, op_rate=5000.0, p99_ms=6.0, errors=0),
        RampStep(threads=16, op_rate=6000.0, p99_ms=15.0, errors=0),
        RampStep(threads=24, op_rate=6100.0, p99_ms=25.0, errors=0),
    ]
    result = ramp_result(summary({"write": stats(1)}, steps, best=24), p99_slo_ms=10.0)
    assert (result.best_threads, result.op_rate, result.p99_ms_at_best) == (24, 6100.0, 25.0)
    assert (result.best_threads_under_slo, result.op_rate_under_slo) == (8, 5000.0)
    assert [s.meets_slo for s in result.steps] == [True, True, False, False]
    plain = ramp_result(summary({"write": stats(1)}, steps, best=24), p99_slo_ms=None)
    assert plain.best_threads_under_slo is None
    assert plain.steps[0].meets_slo is None


@pytest.mark.parametrize(
    ("point", "parts"),
    [("127.0.0.1:9042", ("127.0.0.1", 9042)), ("[::1]:9043", ("::1", 9043))],
)
def test_split_host_port(point: str, parts: tuple[str, int]) -> None:
    assert split_host_port(point) == parts


def test_no_node_answering_is_an_error_naming_the_address() -> None:
    with socket.socket() as sock:  # a port nothing listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ClusterError) as caught:
        check_reachable([f"127.0.0.1:{port}"], timeout_s=1.0)
    assert f"no Cassandra node answers at 127.0.0.1:{port}" in str(caught.value)
    assert "casslab up" in str(caught.value)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_reachable([f"127.0.0.1:{port}", f"127.0.0.1:{server.getsockname()[1]}"])


def test_a_run_s_recall_is_its_ann_queries_mean_from_summary_or_intervals() -> None:
    # k = 2: 1 query found 1, 3 found both (7/8); then 1 found none, 5 found both (10/12)
    first, second = recall_stats([0, 1, 3]), recall_stats([1, 0, 5])
    ann = stats(4).model_copy(update={"recall": first})
    done = summary({"ann": ann}).model_copy(update={"total": ann})
    assert probe_from_summary(100.0, done, None).recall == pytest.approx(7 / 8)
    assert probe_from_summary(100.0, summary({"write": stats(10)}), None).recall is None
    intervals = [
        interval("warmup", 0.0, 4, 2.0).model_copy(update={"total": ann}),
        interval("measure", 1.0, 4, 2.0).model_copy(update={"total": ann}),
        interval("measure", 2.0, 6, 2.0).model_copy(
            update={"total": stats(6).model_copy(update={"recall": second})}
        ),
    ]
    assert probe_from_intervals(100.0, intervals, None).recall == pytest.approx(17 / 20)
