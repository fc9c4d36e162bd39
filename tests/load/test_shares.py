"""casslab.load.shares: one workload split into the disjoint shares of N load clients."""

from __future__ import annotations

import pytest

from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    DistKind,
    Distribution,
    OpenLoop,
    Operation,
    OpKind,
    Output,
    Rate,
    Statement,
    Stop,
    ThreadRamp,
    WorkloadSpec,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load.shares import client_file, client_seed, parts, split, split_seq


def seq(low: int, high: int) -> Distribution:
    return Distribution(kind=DistKind.SEQ, min=low, max=high)


def workload(
    rate: Rate,
    stop: Stop,
    keys: Distribution | None = None,
    *,
    schema: tuple[str, ...] = ("CREATE KEYSPACE IF NOT EXISTS ks ...",),
    op_keys: Distribution | None = None,
    hdr_log: str | None = None,
) -> WorkloadSpec:
    return WorkloadSpec(
        connection=Connection(contact_points=["127.0.0.1:9042"]),
        schema_cql=list(schema),
        keyspace="ks",
        operations=[
            Operation(
                name="write",
                kind=OpKind.WRITE,
                weight=1,
                statements=[Statement(cql="INSERT INTO t (k) VALUES (?)")],
                keys=op_keys,
            )
        ],
        keys=keys or Distribution(kind=DistKind.UNIFORM, min=1, max=1000),
        rate=rate,
        stop=stop,
        seed=7,
        data_seed=11,
        warmup_s=2.0,
        output=Output(hdr_log=hdr_log, interval_s=1.0),
    )


@pytest.mark.parametrize(
    ("total", "n", "expected"),
    [(10, 3, [4, 3, 3]), (4000, 2, [2000, 2000]), (5, 5, [1, 1, 1, 1, 1]), (7, 1, [7])],
)
def test_parts_add_up_with_the_remainder_first(total: int, n: int, expected: list[int]) -> None:
    assert parts(total, n) == expected
    assert sum(parts(total, n)) == total


def test_closed_loop_threads_and_ops_add_up_to_the_totals() -> None:
    shares = split(workload(ClosedLoop(threads=10), Stop(ops=1001, duration_s=30)), 3)

    threads = [c.rate.threads for c in shares.clients if isinstance(c.rate, ClosedLoop)]
    assert threads == [4, 3, 3]
    assert [c.stop.ops for c in shares.clients] == [334, 334, 333]
    assert {c.stop.duration_s for c in shares.clients} == {30}
    assert {c.warmup_s for c in shares.clients} == {2.0}


def test_open_loop_rate_and_in_flight_are_split() -> None:
    shares = split(workload(OpenLoop(rate_per_s=1000, max_in_flight=5), Stop(duration_s=10)), 2)

    rates = [c.rate for c in shares.clients]
    assert rates == [
        OpenLoop(rate_per_s=500, max_in_flight=3),
        OpenLoop(rate_per_s=500, max_in_flight=2),
    ]
    assert [c.stop for c in shares.clients] == [Stop(duration_s=10)] * 2


def test_seq_preload_writes_every_key_exactly_once() -> None:
    """``n=4000 -pop seq=1..4000``: client i visits min..max of its share, once each."""
    for n in (2, 3, 7):
        shares = split(workload(ClosedLoop(threads=32), Stop(ops=4000), seq(1, 4000)), n)
        visited: list[int] = []
        for client in shares.clients:
            assert client.stop.ops is not None
            span = client.keys.max - client.keys.min + 1
            assert client.stop.ops == span  # each key of its range once
            visited += range(client.keys.min, client.keys.max + 1)
        assert sorted(visited) == list(range(1, 4001))
        assert len(visited) == len(set(visited))


@pytest.mark.parametrize(
    ("keys", "ops", "n", "expected"),
    [
        # fewer operations than keys: the keys the single run's cycles visit
        (seq(1, 4000), 1000, 2, [(1, 500), (501, 1000)]),
        # more operations than keys (the run wraps) or no count: the whole range in parts
        (seq(1, 10), 25, 3, [(1, 4), (5, 7), (8, 10)]),
        (seq(101, 110), None, 2, [(101, 105), (106, 110)]),
    ],
)
def test_seq_sub_ranges_are_contiguous_and_disjoint(
    keys: Distribution, ops: int | None, n: int, expected: list[tuple[int, int]]
) -> None:
    ranges = split_seq(keys, ops, n)
    assert [(d.min, d.max) for d in ranges] == expected
    assert {d.kind for d in ranges} == {DistKind.SEQ}


def test_an_operations_own_seq_keys_are_split_too() -> None:
    spec = workload(ClosedLoop(threads=4), Stop(ops=100), op_keys=seq(1, 100))
    shares = split(spec, 2)
    own = [c.operations[0].keys for c in shares.clients]
    assert [(d.min, d.max) for d in own if d is not None] == [(1, 50), (51, 100)]


def test_other_distributions_keep_their_range_with_distinct_seeds_and_one_data_seed() -> None:
    spec = workload(ClosedLoop(threads=8), Stop(ops=100))
    shares = split(spec, 4)

    assert {c.keys for c in shares.clients} == {spec.keys}
    seeds = [c.seed for c in shares.clients]
    assert len(set(seeds)) == 4
    assert spec.seed not in seeds
    assert all(0 <= s < 2**63 for s in seeds)
    assert {c.data_seed for c in shares.clients} == {spec.data_seed}
    # deterministic: the same seed and N give the same shares
    assert split(spec, 4) == shares
    assert client_seed(7, 4, 0) == seeds[0]
    assert client_seed(7, 3, 0) != seeds[0]


def test_schema_runs_once_before_the_clients() -> None:
    spec = workload(ClosedLoop(threads=4), Stop(ops=100))
    shares = split(spec, 2)

    assert [c.schema_cql for c in shares.clients] == [[], []]
    assert {c.keyspace for c in shares.clients} == {"ks"}
    assert shares.schema_run is not None
    assert shares.schema_run.schema_cql == spec.schema_cql
    assert shares.schema_run.stop == Stop(ops=1)
    assert shares.schema_run.output.hdr_log is None
    assert split(workload(ClosedLoop(threads=4), Stop(ops=9), schema=()), 2).schema_run is None


def test_each_client_writes_its_own_hdr_log_beside_the_asked_one() -> None:
    spec = workload(ClosedLoop(threads=4), Stop(ops=100), hdr_log="/runs/lat.hlog")
    logs = [c.output.hdr_log for c in split(spec, 2).clients]
    assert logs == ["/runs/lat.client-0.hlog", "/runs/lat.client-1.hlog"]
    assert client_file("out", 3) == "out.client-3"


def test_one_client_is_the_workload_itself() -> None:
    spec = workload(ThreadRamp(min=4, max=16), Stop())
    shares = split(spec, 1)
    assert shares.clients == [spec]
    assert shares.schema_run is None


@pytest.mark.parametrize(
    ("spec", "n", "message"),
    [
        (workload(ClosedLoop(threads=4), Stop(ops=100)), 0, r"--clients 0: .* at least 1"),
        (workload(ClosedLoop(threads=4), Stop(ops=100)), -2, r"--clients -2: .* at least 1"),
        (workload(ClosedLoop(threads=4), Stop(ops=100)), 5, r"more clients than threads \(4\)"),
        (workload(ThreadRamp(min=4, max=16), Stop()), 2, r"thread ramp .* cannot be split"),
        (
            workload(OpenLoop(rate_per_s=10, max_in_flight=2), Stop(duration_s=5)),
            3,
            r"more clients than requests in flight \(2\)",
        ),
        (workload(ClosedLoop(threads=8), Stop(ops=3)), 4, r"n=3 operations cannot give each"),
        (
            workload(ClosedLoop(threads=8), Stop(duration_s=5), seq(1, 3)),
            4,
            r"sequence 1\.\.3 has 3 key\(s\), fewer than the clients",
        ),
    ],
)
def test_splits_that_cannot_be_made_are_refused_with_the_fix(
    spec: WorkloadSpec, n: int, message: str
) -> None:
    with pytest.raises(WorkloadSyntaxError, match=message):
        split(spec, n)
