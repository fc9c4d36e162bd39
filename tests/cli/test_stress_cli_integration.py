"""`casslab stress` and `casslab ycsb` against one real node, through the real CLI and engine.

Each run is small (a few thousand operations, a few seconds). Checks: operation counts,
rows in the tables, counter sums, and that the summary count equals the sum of the
interval counts. On the session's shared node, emptied before and after.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from casslab.cluster import LocalCluster
from casslab.engine_contract.engine_records import IntervalRecord, SummaryRecord
from casslab.load.stress.graph import revisions_from_html
from cli_entry import NEEDS_ENGINE
from cli_entry import casslab as run_casslab
from shared_clusters import SHARED_NODE, emptied

pytestmark = [
    pytest.mark.integration,
    *NEEDS_ENGINE,
]

NODE = SHARED_NODE


@pytest.fixture(scope="module")
def cluster(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


def casslab(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = run_casslab(None, *args, timeout_s=180, cwd=cwd, columns=250)
    assert done.returncode == 0, f"casslab {' '.join(args)}\n{done.stdout}\n{done.stderr}"
    return done


def run_json(*args: str, cwd: Path | None = None) -> tuple[list[IntervalRecord], SummaryRecord]:
    done = casslab(*args, "--json", cwd=cwd)
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    intervals = [IntervalRecord.model_validate(r) for r in records if r["type"] == "interval"]
    [summary] = [SummaryRecord.model_validate(r) for r in records if r["type"] == "summary"]
    assert intervals, "no interval records"
    assert summary.total.count == sum(i.total.count for i in intervals)
    for name, stats in summary.ops.items():
        assert stats.count == sum(i.ops[name].count for i in intervals if name in i.ops)
    return intervals, summary


def scalar(cluster: LocalCluster, cql: str) -> Any:
    session = cluster.session()
    try:
        return session.execute(cql).one()[0]
    finally:
        session.cluster.shutdown()


def test_stress_write_read_mixed(cluster: LocalCluster, tmp_path: Path) -> None:
    _, write = run_json("stress", "write", "n=2000", "-rate", "threads=8", "-node", NODE)
    assert (write.total.count, write.total.errors) == (2000, 0)
    assert set(write.ops) == {"write"}
    assert scalar(cluster, "SELECT count(*) FROM keyspace1.standard1") == 2000

    _, read = run_json("stress", "read", "n=2000", "-rate", "threads=8", "-node", NODE)
    stats = read.ops["read"]
    assert (stats.count, stats.errors, stats.not_found, stats.mismatches) == (2000, 0, 0, 0)

    _, mixed = run_json(
        "stress",
        "mixed",
        r"ratio\(write=1,read=3\)",
        "n=2000",
        "cl=ONE",
        "-pop",
        r"dist=UNIFORM\(1..2000\)",
        "-rate",
        "threads=8",
        "-node",
        NODE,
    )
    assert mixed.total.count == 2000
    assert mixed.ops["read"].count + mixed.ops["write"].count == 2000
    assert 1200 < mixed.ops["read"].count < 1800  # 3:1
    assert mixed.ops["read"].mismatches == 0
    assert mixed.ops["read"].not_found == 0
    assert scalar(cluster, "SELECT count(*) FROM keyspace1.standard1") == 2000


def test_stress_text_output_log_and_graph_revisions(cluster: LocalCluster, tmp_path: Path) -> None:
    log = tmp_path / "w.log"
    graph = tmp_path / "w.html"
    for revision in ("first", "second"):
        done = casslab(
            "stress",
            "write",
            "n=500",
            "-rate",
            "threads=4",
            "-node",
            NODE,
            "-log",
            f"file={log}",
            "-graph",
            f"file={graph}",
            "title=Write",
            f"revision={revision}",
        )
        assert "type,      total ops,    op/s," in done.stdout
        assert "Total partitions          :        500 [WRITE: 500]" in done.stdout
    assert log.read_text().splitlines()[-1] == "END"
    assert "Results:" in log.read_text()
    stored = revisions_from_html(graph.read_text())
    assert stored is not None
    assert stored.title == "Write"
    assert [r.revision for r in stored.revisions] == ["first", "second"]
    assert all(r.t_s for r in stored.revisions)
    # -reporting: a 2 s row period and the header again every 2 s of rows
    done = casslab(
        *("stress", "write", "duration=6s", "-rate", "threads=2", "fixed=200/s", "-node", NODE),
        *("-reporting", "output-frequency=2s", "header-frequency=2s"),
    )
    rows = [line for line in done.stdout.splitlines() if line.startswith("total,")]
    headers = done.stdout.count("type,      total ops,    op/s,")
    # 6 s in 2 s rows: 3, and a short fourth when the engine's end falls just past the third
    assert 3 <= len(rows) <= 4, done.stdout
    assert headers == len(rows), done.stdout  # at the start, then before each later row
    totals = [int(row.split(",")[1]) for row in rows]  # cumulative operations
    assert totals == sorted(totals), rows
    assert totals[0] > 0, rows


def test_stress_counters(cluster: LocalCluster) -> None:
    _, write = run_json("stress", "counter_write", "n=500", "-rate", "threads=4", "-node", NODE)
    assert (write.total.count, write.total.errors) == (500, 0)
    assert scalar(cluster, 'SELECT sum("C0") FROM keyspace1.counter1') == 500
    assert scalar(cluster, "SELECT count(*) FROM keyspace1.counter1") == 500
    _, read = run_json("stress", "counter_read", "n=500", "-rate", "threads=4", "-node", NODE)
    assert (read.total.count, read.total.errors, read.ops["counter_read"].not_found) == (500, 0, 0)


PROFILE = """
keyspace: k20stress
keyspace_definition: |
  CREATE KEYSPACE k20stress WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: posts
table_definition: |
  CREATE TABLE posts (domain text, published bigint, body text, PRIMARY KEY (domain, published))
    WITH compaction = { 'class':'LeveledCompactionStrategy' }
columnspec:
  - name: domain
    size: uniform(5..20)
  - name: body
    size: uniform(50..200)
queries:
  simple1:
    cql: select * from posts where domain = ? and published = ?
    fields: samerow
"""


def test_stress_user_profile(cluster: LocalCluster, tmp_path: Path) -> None:
    (tmp_path / "level.yaml").write_text(PROFILE)
    _, insert = run_json(
        "stress",
        "user",
        "profile=level.yaml",
        "ops(insert=1)",
        "n=1000",
        "-rate",
        "threads=8",
        "-node",
        NODE,
        cwd=tmp_path,
    )
    assert (insert.total.count, insert.total.errors) == (1000, 0)
    assert scalar(cluster, "SELECT count(*) FROM k20stress.posts") == 1000
    _, mixed = run_json(
        "stress",
        "user",
        "profile=level.yaml",
        r"ops\(insert=9, simple1=1\)",
        "n=1000",
        "-pop",
        "dist=UNIFORM(1..1000)",
        "-rate",
        "threads=8",
        "-node",
        NODE,
        cwd=tmp_path,
    )
    assert mixed.total.count == 1000
    assert mixed.total.errors == 0
    assert set(mixed.ops) == {"insert", "simple1"}
    simple = mixed.ops["simple1"]
    assert simple.not_found == 0
    assert simple.rows == simple.count


WIDE_PROFILE = """
keyspace: k20wide
keyspace_definition: |
  CREATE KEYSPACE k20wide WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: events
table_definition: |
  CREATE TABLE events (src text, day int, seq bigint, body blob,
    PRIMARY KEY (src, day, seq))
columnspec:
  - name: src
    size: fixed(12)
  - name: day
    cluster: fixed(2)
  - name: seq
    cluster: fixed(5)
  - name: body
    size: fixed(100)
insert:
  partitions: fixed(1)
  select: fixed(1)/2
  batchtype: UNLOGGED
queries:
  row:
    cql: select * from events where src = ? and day = ? and seq = ?
  since:
    cql: select * from events where src = ? and day = ? and seq >= ?
"""


def test_stress_user_profile_batches_rows_of_wide_partitions(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """A partition of 2 x 5 rows; `select: fixed(1)/2` writes 5 of them per insert, in one
    UNLOGGED batch; `-insert` overrides give all 10 rows, then 4 partitions per batch."""
    (tmp_path / "wide.yaml").write_text(WIDE_PROFILE)
    common = ("-rate", "threads=4", "-node", NODE)
    _, half = run_json(
        "stress",
        "user",
        "profile=wide.yaml",
        "ops(insert=1)",
        "n=200",
        "-pop",
        "seq=1..200",
        *common,
        cwd=tmp_path,
    )
    assert (half.total.count, half.total.errors) == (200, 0)
    assert (half.total.partitions, half.total.rows) == (200, 1000)
    assert scalar(cluster, "SELECT count(*) FROM k20wide.events") == 1000
    _, full = run_json(
        "stress",
        "user",
        "profile=wide.yaml",
        "ops(insert=1)",
        "n=200",
        "-pop",
        "seq=1..200",
        "-insert",
        "select-ratio=fixed(1)/1",
        *common,
        cwd=tmp_path,
    )
    assert (full.total.rows, full.total.errors) == (2000, 0)
    assert scalar(cluster, "SELECT count(*) FROM k20wide.events") == 2000
    _, reads = run_json(
        "stress",
        "user",
        "profile=wide.yaml",
        "ops(row=1,since=1)",
        "n=400",
        "-pop",
        "dist=UNIFORM(1..200)",
        *common,
        cwd=tmp_path,
    )
    assert reads.total.errors == 0
    row, since = reads.ops["row"], reads.ops["since"]
    assert (row.not_found, row.rows) == (0, row.count), "every row a query binds exists"
    assert since.not_found == 0
    assert row.count < since.rows <= 5 * since.count
    _, multi = run_json(
        "stress",
        "user",
        "profile=wide.yaml",
        "ops(insert=1)",
        "n=50",
        "-pop",
        "seq=201..400",
        "-insert",
        "partitions=fixed(4)",
        "select-ratio=fixed(1)/1",
        "batchtype=logged",
        *common,
        cwd=tmp_path,
    )
    assert (multi.total.count, multi.total.partitions, multi.total.errors) == (50, 200, 0)
    assert scalar(cluster, "SELECT count(*) FROM k20wide.events") == 4000
    text = casslab(
        "stress",
        "user",
        "profile=wide.yaml",
        "ops(insert=1)",
        "n=50",
        "-pop",
        "seq=1..50",
        "-insert",
        "partitions=fixed(2)",
        *common,
        cwd=tmp_path,
    ).stdout
    results = text[text.index("Results:") :]
    assert "Total partitions          :        100" in results, results


def test_shipped_user_profile_runs_as_the_seed_ran_it(cluster: LocalCluster) -> None:
    """The seed's 90/10 user command on the shipped wide-row profile: inserts write about
    half of each partition's 20..40 x 1..4 rows in one UNLOGGED batch."""
    profile = Path(__file__).parents[2] / "experiments" / "profiles" / "user-profile.yaml"
    _, summary = run_json(
        "stress",
        "user",
        f"profile={profile}",
        r"ops\(insert=9,simple1=1\)",
        "n=300",
        "-rate",
        "threads=4",
        "-node",
        NODE,
    )
    assert (summary.total.count, summary.total.errors) == (300, 0)
    insert = summary.ops["insert"]
    assert insert.partitions == insert.count
    assert 10 * insert.count < insert.rows < 160 * insert.count
    assert scalar(cluster, "SELECT count(*) FROM stresscql.typestest") > 10 * insert.count


def test_ycsb_load_and_workloads_a_to_f(cluster: LocalCluster) -> None:
    common = ["-p", f"hosts={NODE}", "-p", "cassandra.keyspace=k20ycsb", "-p", "recordcount=1000"]
    _, load = run_json("ycsb", "load", "-P", "workloada", *common, "-threads", "8")
    assert (load.total.count, load.total.errors, set(load.ops)) == (1000, 0, {"INSERT"})
    assert scalar(cluster, "SELECT count(*) FROM k20ycsb.usertable") == 1000
    expected = {
        "workloada": {"READ", "UPDATE"},
        "workloadb": {"READ", "UPDATE"},
        "workloadc": {"READ"},
        "workloadd": {"READ", "INSERT"},
        "workloade": {"SCAN", "INSERT"},
        "workloadf": {"READ", "READ-MODIFY-WRITE"},
    }
    for name, ops in expected.items():
        _, run = run_json(
            "ycsb", "run", "-P", name, *common, "-p", "operationcount=1000", "-threads", "8"
        )
        assert run.total.count == 1000, name
        assert run.total.errors == 0, name
        assert set(run.ops) == ops, name
        if name == "workloadc":
            assert run.ops["READ"].not_found == 0
        if name == "workloadd":
            rows = scalar(cluster, "SELECT count(*) FROM k20ycsb.usertable")
            assert rows == 1000 + run.ops["INSERT"].count
        if name == "workloade":
            assert run.ops["SCAN"].rows > run.ops["SCAN"].count  # ranges, not single rows
    done = casslab("ycsb", "run", "-P", "workloadb", *common, "-p", "operationcount=200")
    assert done.stdout.startswith("[OVERALL], RunTime(ms), ")
    assert "[OVERALL], Throughput(ops/sec), " in done.stdout
    assert "[READ], Operations, " in done.stdout


def casslab_status(*args: str) -> tuple[int, str, str]:
    done = run_casslab(None, *args, timeout_s=180, columns=250)
    return done.returncode, done.stdout, " ".join(done.stderr.split())


# Replication factor 3 on one node at consistency ALL: every operation fails (Unavailable),
# the run itself goes on to the end.
UNAVAILABLE_STRESS = [
    "stress",
    "write",
    "n=200",
    "cl=ALL",
    "-schema",
    "keyspace=k20unavailable",
    "replication(factor=3)",
    "-rate",
    "threads=4",
    "-errors",
    "retries=0",
    "-node",
    NODE,
]


def test_stress_exits_non_zero_when_operations_fail(cluster: LocalCluster) -> None:
    code, stdout, stderr = casslab_status(*UNAVAILABLE_STRESS)
    assert code == 1, stdout + stderr
    assert (
        "Error: 200 of 200 operations failed; by kind: unavailable: 200; first errors: write: "
        in stderr
    ), stderr
    assert "`-errors ignore` keeps the exit status 0" in stderr
    assert "Results:" in stdout  # the report is printed all the same


def test_stress_errors_ignore_exits_zero_and_still_says_so(cluster: LocalCluster) -> None:
    errors = UNAVAILABLE_STRESS.index("retries=0")
    ignoring = [*UNAVAILABLE_STRESS[:errors], "ignore", *UNAVAILABLE_STRESS[errors:]]
    code, stdout, stderr = casslab_status(*ignoring)
    assert code == 0, stdout + stderr
    assert "200 of 200 operations failed" in stderr
    assert "exit status 0 as -errors ignore asks" in stderr


def test_ycsb_exits_non_zero_when_operations_fail(cluster: LocalCluster) -> None:
    code, stdout, stderr = casslab_status(
        "ycsb",
        "load",
        "-P",
        "workloada",
        "-p",
        f"hosts={NODE}",
        "-p",
        "cassandra.keyspace=k20ycsbunavailable",
        "-p",
        "cassandra.replication_factor=3",
        "-p",
        "cassandra.writeconsistencylevel=ALL",
        "-p",
        "recordcount=20",
        "-threads",
        "10",
    )
    assert code == 1, stdout + stderr
    assert (
        "Error: 20 of 20 operations failed; by kind: unavailable: 20; first errors: INSERT: "
        in stderr
    ), stderr
    assert "casslab ycsb exits non-zero when any operation fails" in stderr
    assert "[OVERALL], RunTime(ms), " in stdout
