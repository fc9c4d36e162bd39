"""Lightweight transactions in user profiles: where a condition is, which binds it takes,
the read-first statement, conditional inserts, serial-cl=, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import Consistency, OpKind
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.parse import parse_stress
from casslab.load.stress.profile import load_profile, parse_profile
from casslab.load.stress.profile_cql import profile_operations
from casslab.load.stress.profile_lwt import condition_at, marker_offsets

TOOLS = Path(__file__).parent / "data" / "cassandra-tools"
DOC_PROFILE = TOOLS / "stress-lwt-example.yaml"
TOOLS_PROFILE = TOOLS / "cqlstress-lwt-example.yaml"


@pytest.mark.parametrize(
    ("cql", "at"),
    [
        ("UPDATE t SET a = ? WHERE k = ? IF b = ?", 31),
        ("update t set a = ? where k = ? if exists", 31),
        ("DELETE FROM t WHERE k = ? IF EXISTS", 26),
        ("INSERT INTO t (k, a) VALUES (?, ?) IF NOT EXISTS", 35),
        ("UPDATE t SET a = 'IF b = 1' WHERE k = ?", None),  # IF in a literal is text
        ('UPDATE t SET a = ? WHERE k = ? AND "if" = ?', None),
        ("UPDATE t SET a = ? WHERE k = ?", None),
        ("SELECT * FROM t WHERE k = ? LIMIT 1", None),
    ],
)
def test_where_the_condition_starts(cql: str, at: int | None) -> None:
    assert condition_at(cql) == at


def test_markers_in_literals_are_not_binds() -> None:
    assert marker_offsets("UPDATE t SET a = '?' WHERE k = ? IF b = ?") == [31, 40]


def test_an_update_with_bound_conditions_reads_the_row_first() -> None:
    """stress-lwt-example.yaml's updatewithlwt, as cassandra-stress runs it: a SELECT of the
    condition columns by the full primary key, whose values replace the IF binds."""
    profile = load_profile(DOC_PROFILE)
    [op] = profile_operations(
        profile, {"updatewithlwt": 1}, Consistency.QUORUM, serial_consistency=Consistency.SERIAL
    )
    read, update = op.statements
    assert read.cql == (
        "SELECT body, url FROM stresscql.blogposts WHERE domain = ? AND published_date = ?"
    )
    assert [b.column for b in read.binds] == ["domain", "published_date"]
    assert update.cql == (
        "update stresscql.blogposts set author = ? where domain = ? and published_date = ? "
        "IF body = ? AND url = ?"
    )
    assert [b.column for b in update.binds] == ["author", "domain", "published_date", "body", "url"]
    assert op.condition_binds == [3, 4]
    assert (op.kind, op.conditional, op.idempotent) == (OpKind.CQL, True, False)
    assert (op.consistency, op.serial_consistency) == (Consistency.QUORUM, Consistency.SERIAL)
    # the read binds the row the update binds: the same generators
    assert read.binds == update.binds[1:3]


def test_a_condition_without_markers_runs_as_written() -> None:
    text = DOC_PROFILE.read_text().replace("IF body = ? AND url = ?", "IF EXISTS")
    profile = parse_profile(text)
    [op] = profile_operations(profile, {"updatewithlwt": 1}, Consistency.ONE)
    assert [s.cql[-9:] for s in op.statements] == ["IF EXISTS"]
    assert (op.conditional, op.condition_binds) == (True, [])
    [plain] = profile_operations(profile, {"regularupdate": 1}, Consistency.ONE)
    assert (plain.conditional, plain.serial_consistency) == (False, None)


def test_bound_conditions_need_samerow() -> None:
    text = DOC_PROFILE.read_text().replace(
        "IF body = ? AND url = ?\n      fields: samerow",
        "IF body = ? AND url = ?\n      fields: multirow",
    )
    with pytest.raises(WorkloadSyntaxError) as error:
        profile_operations(
            parse_profile(text), {"updatewithlwt": 1}, Consistency.ONE, source="p.yaml"
        )
    assert str(error.value) == (
        "user profile p.yaml: query 'updatewithlwt' is a lightweight transaction whose IF "
        "conditions are bound (body, url = ?): casslab reads that row first and binds its "
        "values, which needs fields: samerow (cassandra-stress refuses multirow too). Set "
        "fields: samerow"
    )


def test_a_not_equal_condition_is_bound() -> None:
    text = DOC_PROFILE.read_text().replace("IF body = ? AND url = ?", "IF body != ?")
    [op] = profile_operations(parse_profile(text), {"updatewithlwt": 1}, Consistency.ONE)
    assert op.condition_binds == [3]
    assert op.statements[0].cql.startswith("SELECT body FROM")


def test_the_insert_condition_of_cassandras_lwt_example() -> None:
    """cqlstress-lwt-example.yaml: `condition: IF body = NULL` turns the insert into an
    UPDATE of the regular columns under that condition."""
    profile = load_profile(TOOLS_PROFILE)
    assert profile.insert.condition == "IF body = NULL"
    [op] = profile_operations(
        profile, {"insert": 1}, Consistency.ONE, serial_consistency=Consistency.LOCAL_SERIAL
    )
    [statement] = op.statements
    assert statement.cql == (
        "UPDATE cqlstress_lwt_example.blogposts SET url = ?, author = ?, title = ?, body = ? "
        "WHERE domain = ? AND published_date = ? IF body = NULL"
    )
    binds = [b.column for b in statement.binds]
    assert binds == ["url", "author", "title", "body", "domain", "published_date"]
    assert (op.kind, op.conditional, op.idempotent) == (OpKind.WRITE, True, False)
    assert op.serial_consistency is Consistency.LOCAL_SERIAL
    assert op.batch is not None
    assert op.batch.partitions.max == 1


def test_if_not_exists_keeps_the_insert() -> None:
    text = TOOLS_PROFILE.read_text().replace("IF body = NULL", "IF NOT EXISTS")
    [op] = profile_operations(parse_profile(text), {"insert": 1}, Consistency.ONE)
    assert op.statements[0].cql.startswith("INSERT INTO cqlstress_lwt_example.blogposts (")
    assert op.statements[0].cql.endswith("VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS")


COUNTER_TABLE = """
keyspace: ks
table: c
table_definition: CREATE TABLE c (k bigint PRIMARY KEY, n counter)
insert:
  condition: IF n = 1
"""


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "condition: IF body = NULL",
            "condition: body = NULL",
            "user profile p.yaml: insert.condition 'body = NULL' must start with IF",
        ),
        (
            "condition: IF body = NULL",
            "condition: IF body = ?",
            "user profile p.yaml: insert.condition 'IF body = ?' has a bind marker (?)",
        ),
        (
            "partitions: fixed(1)",
            "partitions: uniform(1..3)",
            "Cassandra runs a conditional batch within one partition only. Set insert "
            "partitions: fixed(1)",
        ),
    ],
)
def test_bad_insert_conditions_are_refused(old: str, new: str, message: str) -> None:
    text = TOOLS_PROFILE.read_text().replace(old, new)

    def build() -> None:
        profile = parse_profile(text, source="p.yaml")
        profile_operations(profile, {"insert": 1}, Consistency.ONE, source="p.yaml")

    with pytest.raises(WorkloadSyntaxError) as error:
        build()
    assert message in str(error.value)


def test_a_counter_table_takes_no_insert_condition() -> None:
    with pytest.raises(WorkloadSyntaxError) as error:
        profile_operations(
            parse_profile(COUNTER_TABLE, source="c.yaml"), {"insert": 1}, Consistency.ONE
        )
    assert "counter column(s) n, and Cassandra runs no conditional update" in str(error.value)


def test_serial_cl_is_serial_or_local_serial() -> None:
    assert parse_stress(["user", "profile=p.yaml", "ops(insert=1)"]).serial_consistency is (
        Consistency.SERIAL
    )
    command = parse_stress(["user", "profile=p.yaml", "ops(insert=1)", "serial-cl=local_serial"])
    assert command.serial_consistency is Consistency.LOCAL_SERIAL
    with pytest.raises(WorkloadSyntaxError) as error:
        parse_stress(["user", "profile=p.yaml", "ops(insert=1)", "serial-cl=QUORUM"])
    assert "serial-cl=QUORUM is not a serial consistency" in str(error.value)
