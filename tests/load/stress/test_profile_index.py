"""Indexes in user profiles: ``extra_definitions`` may create SAI and legacy secondary
indexes on the profile's table; they are created after the table, idempotent and qualified
by the keyspace; an index on another table or keyspace is refused."""

from __future__ import annotations

import pytest

from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.profile import parse_profile
from casslab.load.stress.profile_cql import profile_schema_cql

BASE = """keyspace: ks
table: t
table_definition: CREATE TABLE t (k int PRIMARY KEY, v text, n int)
extra_definitions:
"""


def schema(*extra: str) -> list[str]:
    return profile_schema_cql(parse_profile(BASE + "".join(f"  - {e}\n" for e in extra)))


def test_indexes_come_after_the_table_and_types_before_it() -> None:
    assert schema(
        "CREATE INDEX v_idx ON t (v) USING 'sai'",
        "CREATE TYPE a (x int)",
        "CREATE CUSTOM INDEX ON t (n) USING 'StorageAttachedIndex'",
        "create index if not exists n_legacy on t (n) using 'legacy_local_table';",
    ) == [
        "CREATE TYPE IF NOT EXISTS ks.a (x int)",
        "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY, v text, n int)",
        "CREATE INDEX IF NOT EXISTS v_idx ON ks.t (v) USING 'sai'",
        "CREATE CUSTOM INDEX IF NOT EXISTS ON ks.t (n) USING 'StorageAttachedIndex'",
        "create index if not exists n_legacy ON ks.t (n) using 'legacy_local_table'",
    ]


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("CREATE INDEX ON other (v)", "a profile indexes its own table, 't'; write ON t"),
        ("CREATE INDEX i ON system.t (v)", "names a keyspace; leave it out"),
        ("CREATE INDEX ON t (v); DROP TABLE t", "a ';'"),
        ("CREATE MATERIALIZED VIEW mv AS SELECT * FROM t", "CREATE MATERIALIZED VIEW"),
        ("DROP INDEX i", "'DROP INDEX"),
    ],
)
def test_an_index_elsewhere_or_another_statement_is_refused(statement: str, message: str) -> None:
    with pytest.raises(WorkloadSyntaxError, match="extra_definitions") as caught:
        schema(statement)
    assert message in str(caught.value)
