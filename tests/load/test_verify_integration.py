"""``casslab stress ... --verify CL`` against one real node (512M heap), through the real CLI
and engine: after the measured phase the engine reads back every key a write acknowledged.

A loss that is real, not staged on the read side: the acknowledged writes are shadowed by
tombstones from the future. After a first run, some keys are deleted ``USING TIMESTAMP``
an hour ahead (what a coordinator with a clock running an hour fast writes). The second,
identical run rewrites every key and the node acknowledges each write, but last-write-wins
keeps the later tombstone: exactly those keys read back as no row, and the engine counts
them lost; the others are found.

Failed operations by kind, from real errors of the same node: QUORUM writes to a keyspace
of replication factor 2 on one node are refused by the coordinator (``unavailable``), and
writes to the node frozen (SIGSTOP) past the driver's request timeout give up
(``client_timeout``). On the session's shared node, emptied before and after.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab import pids
from casslab.cluster import LocalCluster
from casslab.engine_contract.engine_records import (
    ErrorKind,
    IntervalRecord,
    SummaryRecord,
    VerifyStats,
)
from casslab.engine_contract.hdr import latency_stats, merge, parse_interval_log, select
from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    Consistency,
    DistKind,
    Distribution,
    Generator,
    GenKind,
    Operation,
    OpKind,
    Output,
    Statement,
    Stop,
    WorkloadSpec,
)
from casslab.load import engine
from casslab.load.engine import RECORDS_FILE
from casslab.load.verify import with_verify
from cli_entry import NEEDS_ENGINE, flat
from cli_entry import casslab as run_casslab
from node_freeze import frozen_during
from shared_clusters import SHARED_NODE, emptied

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

NODE = SHARED_NODE
KEYS = 2000
SHADOWED = 500
WRITE = f"write n={KEYS} -node {NODE} -rate threads=16"


@pytest.fixture(scope="module")
def node(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


def stress(line: str, *options: str, work: Path) -> tuple[str, SummaryRecord]:
    """Run ``casslab stress LINE OPTIONS``; its output and the engine's summary."""
    argv = ["stress", *line.split(), *options, "--workdir", str(work)]
    done = run_casslab(None, *argv, timeout_s=120, columns=250)
    assert done.returncode == 0, f"casslab {' '.join(argv)}\n{done.stdout}\n{done.stderr}"
    for text in (work / RECORDS_FILE).read_text().splitlines():
        record = json.loads(text)
        if record["type"] == "summary":
            return done.stdout, SummaryRecord.model_validate(record)
    raise AssertionError(f"no summary in {work}")


def test_every_acknowledged_write_is_found_then_shadowed_ones_are_lost(
    node: LocalCluster, tmp_path: Path
) -> None:
    out, summary = stress(WRITE, "--verify", "ONE", work=tmp_path / "first")
    assert summary.total.count == KEYS
    assert summary.total.errors == 0
    verified = summary.verify
    assert verified is not None
    assert (verified.consistency, verified.checked, verified.lost, verified.errors) == (
        Consistency.ONE,
        KEYS,
        0,
        0,
    )
    assert f"verified {KEYS:,} acknowledged writes at ONE: 0 lost, 0 unverified" in out

    session = node.session("keyspace1")
    keys = [row[0] for row in session.execute("SELECT key FROM standard1")]
    assert len(keys) == KEYS
    future_us = int((time.time() + 3600) * 1_000_000)
    delete = session.prepare(f"DELETE FROM standard1 USING TIMESTAMP {future_us} WHERE key = ?")
    for key in keys[:SHADOWED]:
        session.execute(delete, (key,))

    out, summary = stress(WRITE, "--verify", "quorum", work=tmp_path / "second")
    assert summary.total.count == KEYS
    assert summary.total.errors == 0
    assert summary.verify is not None
    assert summary.verify.model_dump(exclude={"duration_s"}) == VerifyStats(
        consistency=Consistency.QUORUM, checked=KEYS, lost=SHADOWED, errors=0, duration_s=0
    ).model_dump(exclude={"duration_s"})
    assert f"at QUORUM: {SHADOWED} lost, 0 unverified" in out
    left = session.execute("SELECT COUNT(*) FROM standard1").one()[0]
    assert left == KEYS - SHADOWED  # the read-back saw what a reader sees


def test_ycsb_load_and_run_verify_their_acknowledged_writes(tmp_path: Path) -> None:
    """``casslab ycsb ... --verify CL``: the load's inserts and workload A's updates are
    read back (an update rewrites a loaded key, so each distinct key counts once)."""
    records = 300
    common = ["-P", "workloada", "-p", f"recordcount={records}", "-p", f"hosts={NODE}"]
    for phase, extra in (("load", []), ("run", ["-p", "operationcount=600"])):
        argv = ["ycsb", phase, *common, *extra, "--verify", "QUORUM"]
        argv += ["--workdir", str(tmp_path / phase)]
        done = run_casslab(None, *argv, timeout_s=120, columns=250)
        assert done.returncode == 0, f"casslab {' '.join(argv)}\n{done.stdout}\n{done.stderr}"
        summary = next(
            SummaryRecord.model_validate(json.loads(text))
            for text in (tmp_path / phase / RECORDS_FILE).read_text().splitlines()
            if json.loads(text)["type"] == "summary"
        )
        verify = summary.verify
        assert verify is not None
        assert (verify.consistency, verify.lost, verify.errors) == (Consistency.QUORUM, 0, 0)
        writes = sum(s.count for name, s in summary.ops.items() if name != "READ")
        assert 0 < verify.checked <= min(writes, records)
        line = f"verified {verify.checked:,} acknowledged writes at QUORUM: 0 lost, 0 unverified"
        assert line in done.stdout
    done = run_casslab(
        None,
        "ycsb",
        "run",
        "-P",
        "workloadc",
        "-p",
        f"hosts={NODE}",
        "--verify",
        "ONE",
        "--workdir",
        str(tmp_path / "reads"),
        timeout_s=60,
    )
    assert done.returncode != 0
    assert "cannot verify the writes of ycsb run: it has no write operation" in flat(done.stderr)
    assert not (tmp_path / "reads" / RECORDS_FILE).exists()  # no engine ran


def test_verify_refuses_what_it_cannot_check_before_anything_runs(tmp_path: Path) -> None:
    for argv, reasons in [
        (
            ["write", "n=10", "-node", NODE, "--verify", "QUORAM"],
            ["'QUORAM' is not a consistency level", "ONE, TWO, THREE, QUORUM, ALL"],
        ),
        (
            ["counter_write", "n=10", "-node", NODE, "--verify", "ONE"],
            ["cannot verify the writes of stress counter_write", "counter updates"],
        ),
    ]:
        done = run_casslab(None, "stress", *argv, "--workdir", str(tmp_path), timeout_s=60)
        assert done.returncode != 0
        message = flat(done.stderr)
        for reason in reasons:
            assert reason in message, message
        assert not (tmp_path / RECORDS_FILE).exists()  # no engine ran


RF2 = [
    "CREATE KEYSPACE IF NOT EXISTS rf2 WITH replication = "
    "{'class': 'SimpleStrategy', 'replication_factor': 2}",
    "CREATE TABLE IF NOT EXISTS rf2.t (k blob PRIMARY KEY, v blob)",
]


def rf2_writes(node: LocalCluster, consistency: Consistency, stop: Stop) -> WorkloadSpec:
    """Writes to rf2.t at ``consistency``: no retries, a 0.3 s request timeout."""
    key = Generator(kind=GenKind.KEY_BLOB, column="k")
    write = Operation(
        name="write",
        kind=OpKind.WRITE,
        weight=1.0,
        consistency=consistency,
        statements=[
            Statement(
                cql="INSERT INTO rf2.t (k, v) VALUES (?, ?)",
                binds=[key, Generator(kind=GenKind.BLOB, column="v")],
            )
        ],
    )
    return WorkloadSpec(
        connection=Connection(contact_points=node.contact_points, request_timeout_s=0.3, retries=0),
        schema_cql=RF2,
        operations=[write],
        keys=Distribution(kind=DistKind.UNIFORM, min=1, max=100_000),
        rate=ClosedLoop(threads=4),
        stop=stop,
    )


@pytest.mark.measuring  # 0.3 s read-back timeouts; the node frozen for 1.2 s
def test_failed_operations_count_by_the_kind_of_their_error(
    node: LocalCluster, tmp_path: Path
) -> None:
    quorum = engine.run(
        rf2_writes(node, Consistency.QUORUM, Stop(ops=40)), tmp_path / "quorum", timeout_s=60
    )
    total = quorum.summary.total
    assert (total.count, total.errors) == (0, 40)
    assert total.errors_by_kind == {ErrorKind.UNAVAILABLE: 40}
    assert quorum.summary.ops["write"].errors_by_kind == {ErrorKind.UNAVAILABLE: 40}

    pid = node.nodes[0].pid
    assert pid is not None

    spec = with_verify(rf2_writes(node, Consistency.ONE, Stop(duration_s=5.0)), "ONE")
    with frozen_during(pid, after_s=1.5, for_s=1.2):
        frozen = engine.run(spec, tmp_path / "frozen", timeout_s=60)
    total = frozen.summary.total
    assert total.count > 0
    assert total.errors >= 4  # at least each thread's request in flight when it froze
    assert total.errors_by_kind == {ErrorKind.CLIENT_TIMEOUT: total.errors}
    for interval in frozen.intervals:
        assert sum(interval.total.errors_by_kind.values()) == interval.total.errors
    # only acknowledged writes are read back, and every one is there; a read-back has the
    # spec's 0.3 s timeout and no retry, so on a busy host one may fail (unverified, not lost)
    verify = frozen.summary.verify
    assert verify is not None
    assert 0 < verify.checked <= total.count
    assert verify.lost == 0
    assert verify.errors <= max(1, verify.checked // 100), verify


def test_sigusr1_ends_the_measured_phase_and_the_read_back_still_runs(
    node: LocalCluster, tmp_path: Path
) -> None:
    """What ``after_operations:`` sends: the phase of 120 s ends at once, its last partial
    interval and HDR lines are written, every acknowledged write is read back and the
    summary comes, as at the phase's normal end (a SIGTERM would skip the read-back)."""
    hlog = tmp_path / "latency.hlog"
    spec = with_verify(rf2_writes(node, Consistency.ONE, Stop(duration_s=120.0)), "ONE")
    spec = spec.model_copy(update={"output": Output(interval_s=1.0, hdr_log=str(hlog))})
    started: list[int] = []
    records = []
    told = 0.0
    for record in engine.stream(spec, tmp_path / "ended", timeout_s=90, on_start=started.append):
        records.append(record)
        measured = [r for r in records if isinstance(r, IntervalRecord)]
        if len(measured) == 2 and not told:
            assert engine.end_phase(started[0], pids.create_time(started[0]))
            told = time.monotonic()
    summary = next(r for r in records if isinstance(r, SummaryRecord))
    intervals = [r for r in records if isinstance(r, IntervalRecord)]
    assert time.monotonic() - told < 30, "the engine went on after SIGUSR1"
    assert summary.duration_s < 10, summary.duration_s  # not the 120 s asked
    assert len(intervals) >= 3  # two whole seconds (or three), then the partial one
    last = intervals[-1]
    assert last.t_end_s - last.t_start_s < 0.999, "the partial interval was not written"
    assert sum(i.total.count for i in intervals) == summary.total.count > 0
    verify = summary.verify
    assert verify is not None, "the read-back was skipped"
    assert 0 < verify.checked <= summary.total.count
    assert (verify.lost, verify.consistency) == (0, Consistency.ONE)
    histogram = merge(select(parse_interval_log(hlog.read_text()), tags=["write"]))
    assert latency_stats(histogram).count == summary.total.count
