"""`casslab stress ... --dry-run` prints what it will send (schema, each operation's CQL and
consistency) on stderr, keeping the JSON spec on stdout; bad names in ops(), ratio() and
columnspec, and unknown truncate modes, are refused before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from casslab.cli.main import app
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import CasslabError

runner = CliRunner()

PROFILE = """\
keyspace: ks1
table: t1
keyspace_definition: |
  CREATE KEYSPACE ks1 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table_definition: |
  CREATE TABLE t1 (k int PRIMARY KEY, v text)
columnspec:
  - name: COLUMN
    size: fixed(3)
queries:
  q1:
    cql: SELECT * FROM t1 WHERE k = ?
    fields: samerow
"""


def profile(tmp_path: Path, column: str = "v") -> str:
    path = tmp_path / "p.yaml"
    path.write_text(PROFILE.replace("COLUMN", column), encoding="utf-8")
    return f"profile={path}"


def test_user_dry_run_prints_the_statements_and_keeps_json_on_stdout(tmp_path: Path) -> None:
    args = ["stress", "user", profile(tmp_path), "ops(insert=3,q1=1)", "cl=QUORUM", "n=10"]
    result = runner.invoke(app, [*args, "truncate=once", "--dry-run"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    spec = WorkloadSpec.model_validate_json(result.stdout)
    assert spec.keyspace == "ks1"
    lines = result.stderr.splitlines()
    schema_end = lines.index("")
    assert lines[0] == "Schema statements, run once in this order:"
    assert lines[1].startswith("  CREATE KEYSPACE IF NOT EXISTS ks1")
    assert lines[2] == "  CREATE TABLE IF NOT EXISTS ks1.t1 (k int PRIMARY KEY, v text);"
    assert lines[3] == "  TRUNCATE ks1.t1;"
    assert schema_end == 4
    rest = lines[schema_end + 1 :]
    assert rest[0] == "Operations, prepared in keyspace ks1:"
    assert rest[1].startswith("  insert (write, weight 3, CL QUORUM")
    assert rest[2] == "    INSERT INTO ks1.t1 (k, v) VALUES (?, ?)"
    assert rest[3] == "      binds: k, v"
    assert rest[4] == "  q1 (read, weight 1, CL QUORUM, rows read are checked):"
    assert rest[5] == "    SELECT * FROM ks1.t1 WHERE k = ?"


def test_predefined_dry_run_prints_its_statements() -> None:
    result = runner.invoke(app, ["stress", "write", "n=10", "cl=ONE", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "  write (write, weight 1, CL ONE):" in result.stderr.splitlines()
    WorkloadSpec.model_validate_json(result.stdout)


@pytest.mark.parametrize(
    ("args", "note"),
    [
        (["write", "n=10", "truncate=always"], False),  # fixed threads: one run, as stress
        (["write", "duration=10s", "truncate=always"], True),  # the default thread ramp
        (["write", "duration=10s", "truncate=always", "-rate", "threads=4"], False),
        (["write", "duration=10s", "truncate=once"], False),
    ],
)
def test_truncate_always_with_a_ramp_says_casslab_truncates_once(
    args: list[str], note: bool
) -> None:
    result = runner.invoke(app, ["stress", *args, "--dry-run"])
    assert result.exit_code == 0, result.output
    assert ("truncate=always: cassandra-stress empties" in result.stderr) is note
    assert "TRUNCATE" in result.stderr


@pytest.mark.parametrize(
    ("args", "column", "message"),
    [
        (
            ["ops(insert=1,q9=1)"],
            "v",
            "'q9' is not insert or a query of profile",
        ),
        (
            ["ops(insert=1)"],
            "nope",
            "columnspec names 'nope', which is not a column of the table (k, v)",
        ),
        (
            ["ops(insert=1)", "truncate=sometimes"],
            "v",
            "'sometimes' is not a truncate mode; use truncate=never",
        ),
    ],
)
def test_bad_user_names_are_refused_before_anything_starts(
    tmp_path: Path, args: list[str], column: str, message: str
) -> None:
    result = runner.invoke(app, ["stress", "user", profile(tmp_path, column), *args, "--dry-run"])
    assert isinstance(result.exception, CasslabError)
    text = " ".join(str(result.exception).split())
    assert message in text
    if "q9" in message:
        assert "available: insert, q1" in text
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["mixed", "ratio(write=1,foo=2)"], "'foo' is not an operation of mixed; use read, write"),
        (["write", "ratio(write=1)"], "ratio(...) is only valid for mixed"),
        (["write", "ops(insert=1)"], "ops(...) is only valid for user"),
        (["write", "truncate=x"], "'x' is not a truncate mode"),
    ],
)
def test_bad_ratio_and_ops_are_refused(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["stress", *args, "--dry-run"])
    assert isinstance(result.exception, CasslabError)
    assert message in " ".join(str(result.exception).split())
