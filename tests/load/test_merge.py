"""casslab.load.merge and run_clients: several clients' records and HDR logs merged exactly.

Two literal clients whose engines started 0.3 s apart: every interval lands in the slot
nearest its wall-clock start, counts and rates add up, and every latency figure is the
merged histogram's (worked out here from the buckets), never an average of percentiles.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from casslab.engine_contract.engine_records import (
    ErrorKind,
    ErrorRecord,
    IntervalRecord,
    OpStats,
    SummaryRecord,
    VerifyStats,
)
from casslab.engine_contract.hdr import Histogram, latency_stats, merge, parse_interval_log
from casslab.engine_contract.hdr_encode import LogLine, interval_log_text
from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    Consistency,
    DistKind,
    Distribution,
    Operation,
    OpKind,
    Statement,
    Stop,
    WorkloadSpec,
)
from casslab.errors import EngineError
from casslab.load.clients import ClientRun, ClientSpec, run_clients
from casslab.load.engine import EngineResult
from casslab.load.merge import ClientFailure, ClientOutput, merge_clients, merge_verify
from hdr_literals import ENGINE_DIGITS, ENGINE_HIGH_NS, ENGINE_LOW_NS

Buckets = dict[int, int]


def hist(counts: Buckets) -> Histogram:
    return Histogram(ENGINE_LOW_NS, ENGINE_HIGH_NS, ENGINE_DIGITS, counts)


def stats(
    response: Buckets,
    service: Buckets,
    seconds: float,
    errors: int = 0,
    kind: ErrorKind = ErrorKind.UNAVAILABLE,
) -> OpStats:
    count = hist(response).total_count
    return OpStats(
        count=count,
        errors=errors,
        errors_by_kind={kind: errors} if errors else {},
        op_rate=count / seconds,
        rows=count,
        partitions=count,
        response=latency_stats(hist(response)),
        service=latency_stats(hist(service)),
    )


def client(
    name: str,
    base_s: float,
    intervals: Sequence[tuple[float, float, Buckets]],
    errors: int = 0,
    kind: ErrorKind = ErrorKind.UNAVAILABLE,
    verify: VerifyStats | None = None,
) -> ClientOutput:
    """One client's output: ``(t_start_s, length_s, write buckets)`` per measured interval
    (service time: the same buckets one index lower), a warm-up interval first."""
    records = [
        IntervalRecord(
            phase="warmup",
            t_start_s=0.0,
            t_end_s=intervals[0][0],
            threads=4,
            total=stats({1: 5}, {1: 5}, 1.0),
            ops={"write": stats({1: 5}, {1: 5}, 1.0)},
        )
    ]
    lines: list[LogLine] = []
    for start, length, buckets in intervals:
        service = {i - 1: c for i, c in buckets.items()}
        op = stats(buckets, service, length, errors, kind)
        records.append(
            IntervalRecord(
                t_start_s=start, t_end_s=start + length, threads=4, total=op, ops={"write": op}
            )
        )
        lines += [
            LogLine("write", round(start, 3), round(length, 3), hist(buckets)),
            LogLine("write.service", round(start, 3), round(length, 3), hist(service)),
        ]
    measured = records[1:]
    duration = sum(r.t_end_s - r.t_start_s for r in measured)
    response = merge(hist(b) for _s, _l, b in intervals)
    service = merge(hist({i - 1: c for i, c in b.items()}) for _s, _l, b in intervals)
    count = sum(r.total.count for r in measured)
    total = OpStats(
        count=count,
        errors=errors * len(intervals),
        errors_by_kind={kind: errors * len(intervals)} if errors else {},
        op_rate=count / duration,
        response=latency_stats(response),
        service=latency_stats(service),
    )
    summary = SummaryRecord(
        duration_s=duration,
        total=total,
        ops={"write": total},
        engine_version="0.1.0",
        verify=verify,
    )
    result = EngineResult(
        intervals=records,
        summary=summary,
        errors=[ErrorRecord(op="write", message="timeout")] if errors else [],
    )
    return ClientOutput(
        name, result, parse_interval_log(interval_log_text(base_s, lines, writer="t"))
    )


A = client(
    "client-0", 1000.0, [(1.0, 1.0, {10: 90, 900: 10}), (2.0, 1.0, {20: 50}), (3.0, 0.5, {5: 1})]
)
# started 0.3 s later; its first measured interval starts 0.2 s after A's (1001.2)
B = client("client-1", 1000.3, [(0.9, 1.0, {10: 5, 2000: 5}), (1.9, 1.0, {30: 40})], errors=2)


def test_intervals_with_offset_starts_land_in_the_nearest_slot() -> None:
    merged = merge_clients([A, B], [], interval_s=1.0).run

    assert merged.base_time_s == 1000.0
    assert [round(i.t_start_s, 6) for i in merged.intervals] == [1.0, 2.0, 3.0]
    assert merged.max_offset_s == pytest.approx(0.2)
    counts = [i.ops["write"].count for i in merged.intervals]
    assert counts == [100 + 10, 50 + 40, 1]
    assert [i.threads for i in merged.intervals] == [8, 8, 4]
    first = merged.intervals[0]
    assert first.total.errors == 2
    assert first.total.op_rate == pytest.approx(100 / 1.0 + 10 / 1.0)
    # latency from the merged buckets: p99 of {10: 95, 900: 10, 2000: 5} is bucket 2000's
    both = hist({10: 95, 900: 10, 2000: 5})
    assert first.ops["write"].response == latency_stats(both)
    assert first.total.response == latency_stats(both)
    assert first.ops["write"].service == latency_stats(hist({9: 95, 899: 10, 1999: 5}))
    assert first.ops["write"].response.p99_ms == both.highest_equivalent(2000) / 1e6


def test_the_summary_is_the_sum_of_counts_and_the_merge_of_every_histogram() -> None:
    merged = merge_clients([A, B], [], interval_s=1.0).run
    assert merged.summary is not None
    total = merged.summary.total
    everything = hist({10: 95, 900: 10, 2000: 5, 20: 50, 5: 1, 30: 40})

    assert total.count == A.result.summary.total.count + B.result.summary.total.count == 201
    assert total.errors == 4
    assert total.op_rate == pytest.approx(201 / merged.summary.duration_s)
    assert total.response == latency_stats(everything)
    # not an average of the clients' p99s
    client_p99s = (A.result.summary.total.response.p99_ms, B.result.summary.total.response.p99_ms)
    assert total.response.p99_ms != pytest.approx(sum(client_p99s) / 2)
    client_p95s = (A.result.summary.total.response.p95_ms, B.result.summary.total.response.p95_ms)
    assert total.response.p95_ms != pytest.approx(sum(client_p95s) / 2)
    assert merged.summary.duration_s == pytest.approx(2.5)
    assert [c.client for c in merged.clients] == ["client-0", "client-1"]
    assert [e.message for e in merged.errors] == ["client-1: timeout"]


def test_errors_by_kind_are_summed_kind_by_kind() -> None:
    c = client(
        "client-2", 1000.0, [(1.0, 1.0, {10: 3}), (2.0, 1.0, {10: 3})], 1, ErrorKind.WRITE_TIMEOUT
    )
    merged = merge_clients([B, c], [], interval_s=1.0).run
    assert merged.summary is not None

    unavailable, timeout = ErrorKind.UNAVAILABLE, ErrorKind.WRITE_TIMEOUT
    first = merged.intervals[0]
    assert first.total.errors_by_kind == {unavailable: 2, timeout: 1}
    assert first.ops["write"].errors_by_kind == {unavailable: 2, timeout: 1}
    assert merged.summary.total.errors_by_kind == {unavailable: 4, timeout: 2}
    assert sum(merged.summary.total.errors_by_kind.values()) == merged.summary.total.errors == 6
    clean = merge_clients([A], [], interval_s=1.0).run
    assert clean.summary is not None
    assert clean.summary.total.errors_by_kind == {}


def test_lwt_outcomes_are_summed() -> None:
    """Each client's applied / not-applied counts add up in the merged summary."""

    def outcomes(c: ClientOutput, applied: int) -> ClientOutput:
        summary = c.result.summary
        assert summary is not None
        counts = {"applied": applied, "not_applied": summary.total.count - applied}
        total = summary.total.model_copy(update=counts)
        done = summary.model_copy(update={"total": total, "ops": {"write": total}})
        return ClientOutput(c.client, c.result.model_copy(update={"summary": done}), c.log)

    merged = merge_clients([outcomes(A, 100), outcomes(B, 1)], [], interval_s=1.0).run
    assert merged.summary is not None
    total = merged.summary.total
    assert (total.applied, total.not_applied) == (101, 100)
    assert total.applied + total.not_applied == total.count
    assert merged.summary.ops["write"].applied == 101


def _verified(checked: int, lost: int, errors: int, duration_s: float) -> VerifyStats:
    return VerifyStats(
        consistency=Consistency.QUORUM,
        checked=checked,
        lost=lost,
        errors=errors,
        duration_s=duration_s,
    )


def test_each_client_verifies_its_own_keys_and_the_counts_add_up() -> None:
    a = client("client-0", 1000.0, [(1.0, 1.0, {10: 4})], verify=_verified(400, 1, 2, 0.5))
    b = client("client-1", 1000.0, [(1.0, 1.0, {10: 4})], verify=_verified(300, 0, 1, 0.7))
    merged = merge_clients([a, b], [], interval_s=1.0).run
    assert merged.summary is not None
    assert merged.summary.verify == _verified(700, 1, 3, 0.7)
    # a client without a read-back (interrupted): no merged one, not a partial count
    assert merge_verify([_verified(400, 1, 2, 0.5), None]) is None
    assert merge_verify([]) is None
    one = _verified(5, 0, 0, 0.1).model_copy(update={"consistency": Consistency.ONE})
    assert merge_verify([_verified(5, 0, 0, 0.1), one]) is None


def test_the_merged_log_holds_the_merged_histograms() -> None:
    merged = merge_clients([A, B], [], interval_s=1.0)
    log = parse_interval_log(merged.hlog)

    assert log.base_time_s == 1000.0
    assert log.tags() == ["write", "write.service"]
    writes = [i for i in log.intervals if i.tag == "write"]
    assert [i.start_s for i in writes] == [1.0, 2.0, 3.0]
    assert dict(writes[0].histogram.counts) == {10: 95, 900: 10, 2000: 5}
    assert dict(writes[1].histogram.counts) == {20: 50, 30: 40}
    whole = merge(i.histogram for i in writes)
    assert merged.run.summary is not None
    assert latency_stats(whole) == merged.run.summary.ops["write"].response


def test_a_client_whose_log_disagrees_with_its_records_is_reported_not_merged() -> None:
    short_log = ClientOutput(
        "client-1", B.result, parse_interval_log(interval_log_text(1000.3, [], writer="t"))
    )
    launcher_failure = ClientFailure(
        client="client-2", reason="exited with status 1", stderr_tail="boom"
    )
    merged = merge_clients([A, short_log], [launcher_failure], interval_s=1.0).run

    assert [f.client for f in merged.failed] == ["client-2", "client-1"]
    assert "HDR log holds 0 write value(s)" in merged.failed[1].reason
    assert merged.failed[0].stderr_tail == "boom"
    assert merged.summary is not None
    assert merged.summary.total.count == A.result.summary.total.count


def test_no_client_finished_gives_no_summary() -> None:
    failure = ClientFailure(client="client-0", reason="no summary")
    merged = merge_clients([], [failure], interval_s=1.0)
    assert merged.run.summary is None
    assert merged.hlog == ""
    assert merged.run.failed == [failure]


# ---------------------------------------------------------------- run_clients


def spec() -> WorkloadSpec:
    return WorkloadSpec(
        connection=Connection(contact_points=["127.0.0.1:9042"]),
        schema_cql=["CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {}"],
        operations=[
            Operation(name="write", kind=OpKind.WRITE, weight=1, statements=[Statement(cql="x")])
        ],
        keys=Distribution(kind=DistKind.SEQ, min=1, max=10),
        rate=ClosedLoop(threads=2),
        stop=Stop(ops=10),
    )


class ScriptedLauncher:
    """Hands back given runs (the launcher seam's contract), recording what it was asked."""

    def __init__(self, schema_fails: bool = False) -> None:
        self.asked: list[list[str]] = []
        self.schema_fails = schema_fails

    def launch(self, clients: Sequence[ClientSpec]) -> list[ClientRun]:
        self.asked.append([c.client for c in clients])
        if clients[0].client == "schema":
            failure = (
                ClientFailure(client="schema", reason="bad CQL") if self.schema_fails else None
            )
            return [ClientRun(client="schema", failure=failure)]
        return [
            ClientRun(
                client="client-0", result=A.result, hlog=interval_log_text(1000.0, [], writer="t")
            ),
            ClientRun(
                client="client-1", failure=ClientFailure(client="client-1", reason="status 1")
            ),
        ]


def test_run_clients_runs_the_schema_once_then_the_clients_and_reports_failures() -> None:
    launcher = ScriptedLauncher()
    merged = run_clients(spec(), 2, launcher)

    assert launcher.asked == [["schema"], ["client-0", "client-1"]]
    failed = {f.client: f.reason for f in merged.run.failed}
    assert failed["client-1"] == "status 1"
    assert "client-0" in failed  # its (empty) log does not hold its records' operations


def test_a_failed_schema_run_starts_no_client() -> None:
    launcher = ScriptedLauncher(schema_fails=True)
    with pytest.raises(EngineError, match="schema statements, run once before the 2 clients"):
        run_clients(spec(), 2, launcher)
    assert launcher.asked == [["schema"]]
