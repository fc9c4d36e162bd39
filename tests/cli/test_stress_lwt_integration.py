"""Lightweight transactions through real nodes: Apache Cassandra's two LWT profiles
(tests/load/stress/data/cassandra-tools) run with `casslab stress user`, their `[applied]`
outcomes are counted and add up to the conditional operations, and the rows read back show
what the conditional statements did. Three nodes: `cqlstress-lwt-example.yaml` keeps its
replication factor 3, whose Paxos quorum one node cannot give.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster import LocalCluster
from casslab.engine_contract.engine_records import SummaryRecord
from cli_entry import NEEDS_ENGINE
from cli_entry import casslab as run_casslab
from shared_clusters import emptied, shared_spec

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

NODE = shared_spec("three").base_address
TOOLS = Path(__file__).parents[1] / "load" / "stress" / "data" / "cassandra-tools"
N = 200


@pytest.fixture(scope="module")
def cluster(shared_three: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_three)


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done: subprocess.CompletedProcess[str] = run_casslab(
        None, "stress", "user", *args, "-node", NODE, timeout_s=240, cwd=cwd
    )
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def stress(cwd: Path, *args: str) -> SummaryRecord:
    """The run's summary record (0 errors)."""
    done = run(cwd, *args, "--json")
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    [summary] = [SummaryRecord.model_validate(r) for r in records if r["type"] == "summary"]
    errors = [r["message"] for r in records if r["type"] == "error"]
    assert summary.total.errors == 0, errors[:3]
    return summary


def test_the_insert_condition_applies_once_per_row(cluster: LocalCluster, tmp_path: Path) -> None:
    """cqlstress-lwt-example.yaml: `insert: condition: IF body = NULL` writes a post only
    where none is: the first run applies every insert, the same run again (the same rows)
    applies none, and the rows hold what the first run wrote."""
    name = "cqlstress-lwt-example.yaml"
    shutil.copy(TOOLS / name, tmp_path / name)
    args = (f"profile={name}", "ops(insert=1)", f"n={N}", "-pop", f"seq=1..{N}")
    first = stress(tmp_path, *args)
    insert = first.ops["insert"]
    assert (insert.count, insert.applied, insert.not_applied) == (N, N, 0)
    again = stress(tmp_path, *args)
    insert = again.ops["insert"]
    assert (insert.count, insert.applied, insert.not_applied) == (N, 0, N)
    console = run(tmp_path, *args).stdout.splitlines()
    assert f"LWT applied               : {0:>10,} [insert: 0]" in console, console[-20:]
    assert f"LWT not applied           : {N:>10,} [insert: {N}]" in console, console[-20:]
    session = cluster.session()
    rows = list(session.execute("SELECT body, author FROM cqlstress_lwt_example.blogposts"))
    assert len(rows) == N
    assert all(r.body is not None and r.author is not None for r in rows)


def test_an_update_with_bound_conditions_reads_the_row_first(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """stress-lwt-example.yaml (cassandra-stress's documentation): `updatewithlwt` is
    `update ... set author = ? ... IF body = ? AND url = ?`. On an empty table the read
    finds no row, nulls are bound and every update applies, creating rows with an author
    and no body; mixed with inserts, the values read make the conditions hold."""
    name = "stress-lwt-example.yaml"
    shutil.copy(TOOLS / name, tmp_path / name)
    pop = ("-pop", f"seq=1..{N}")
    alone = stress(tmp_path, f"profile={name}", "ops(updatewithlwt=1)", f"n={N}", *pop)
    lwt = alone.ops["updatewithlwt"]
    assert (lwt.count, lwt.applied, lwt.not_applied) == (N, N, 0)
    session = cluster.session()
    rows = list(session.execute("SELECT author, body, url FROM stresscql.blogposts"))
    assert len(rows) == N  # one row per partition of seq=1..N
    assert all(r.author and r.body is None and r.url is None for r in rows)

    mixed = stress(tmp_path, f"profile={name}", "ops(insert=1,updatewithlwt=1)", f"n={2 * N}", *pop)
    lwt = mixed.ops["updatewithlwt"]
    assert lwt.count > N // 2
    assert lwt.applied + lwt.not_applied == lwt.count
    assert lwt.applied == lwt.count  # one client: nothing changes a row between read and IF
    assert mixed.ops["insert"].applied + mixed.ops["insert"].not_applied == 0


def test_two_profiles_in_one_run(cluster: LocalCluster, tmp_path: Path) -> None:
    """profile=a.yaml,b.yaml with ops(SPEC.OP=W), as cassandra-stress takes them: the LWT
    documentation profile (named ex1 by its specname) and Cassandra's counter example
    (named by keyspace.table) in one run, each operation on its own table."""
    lwt = "specname: ex1\n" + (TOOLS / "stress-lwt-example.yaml").read_text()
    (tmp_path / "ex1.yaml").write_text(lwt)
    shutil.copy(TOOLS / "cqlstress-counter-example.yaml", tmp_path / "counter.yaml")
    ops = "ops(ex1.insert=1,ex1.updatewithlwt=1,stresscql.counttest.insert=2)"
    both = stress(
        tmp_path, "profile=ex1.yaml,counter.yaml", ops, f"n={2 * N}", "-pop", f"seq=1..{N}"
    )
    assert set(both.ops) == {"ex1.insert", "ex1.updatewithlwt", "stresscql.counttest.insert"}
    assert sum(s.count for s in both.ops.values()) == 2 * N
    lwt_op = both.ops["ex1.updatewithlwt"]
    assert lwt_op.applied + lwt_op.not_applied == lwt_op.count > 0
    counters = both.ops["stresscql.counttest.insert"].count
    session = cluster.session()
    [row] = session.execute("SELECT count(*) FROM stresscql.counttest")
    assert 0 < row.count <= counters  # rows of the counter table: written by its own inserts
