"""cassandra-stress user profiles: parsing, schema, generators, operations, bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import BatchType, Consistency, DistKind, GenKind, OpKind
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.profile import (
    StressProfile,
    apply_insert_options,
    load_profile,
    parse_profile,
    parse_table_definition,
)
from casslab.load.stress.profile_cql import (
    column_generator,
    insert_statement,
    profile_operations,
    profile_schema_cql,
    query_statement,
)

# A profile in the shape of the seeds' tools/cqlstress-level.yaml (stress's blog example
# with a leveled compaction table).
LEVEL_PROFILE = """
keyspace: stresscql
keyspace_definition: |
  CREATE KEYSPACE stresscql WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: blogposts
table_definition: |
  CREATE TABLE blogposts (
        domain text,
        published_date bigint,
        url text,
        author text,
        title text,
        body text,
        PRIMARY KEY(domain, published_date)
  ) WITH CLUSTERING ORDER BY (published_date DESC)
    AND compaction = { 'class':'LeveledCompactionStrategy' }
    AND comment='A table to hold blog posts'
columnspec:
  - name: domain
    size: gaussian(5..100)
    population: uniform(1..10M)
  - name: published_date
    cluster: fixed(1000)
  - name: url
    size: uniform(30..300)
  - name: title
    size: gaussian(10..200)
  - name: author
    size: uniform(5..20)
  - name: body
    size: gaussian(100..5000)
insert:
  partitions: fixed(1)
  select: fixed(1)/1000
  batchtype: UNLOGGED
queries:
  simple1:
    cql: select * from blogposts where domain = ? LIMIT 1
    fields: samerow
  range1:
    cql: select url, title from blogposts where domain = ? and published_date >= ? LIMIT 10
    fields: multirow
  old_style: select * from blogposts where domain = ?
"""

TYPES_PROFILE = """
keyspace: stresscql
table: typestest
table_definition: |
  CREATE TABLE typestest (name text, choice boolean, value blob, PRIMARY KEY((name, choice)))
queries:
  simple1:
    cql: select * from typestest where name = ? and choice = ? LIMIT 100
"""


@pytest.fixture
def level() -> StressProfile:
    return parse_profile(LEVEL_PROFILE, source="cqlstress-level.yaml")


def test_parse_profile(level: StressProfile) -> None:
    assert (level.keyspace, level.table) == ("stresscql", "blogposts")
    assert [c.name for c in level.columns] == [
        "domain",
        "published_date",
        "url",
        "author",
        "title",
        "body",
    ]
    assert level.partition_key == ["domain"]
    assert level.clustering == ["published_date"]
    assert level.columnspec["domain"].population.max == 10_000_000
    assert level.columnspec["published_date"].cluster.max == 1000
    assert level.columnspec["body"].size.kind is DistKind.GAUSSIAN
    assert level.spec_of("author").population.max == 100_000_000_000  # stress default
    assert (level.insert.select_divisor, level.insert.batchtype) == (1000.0, BatchType.UNLOGGED)
    assert set(level.queries) == {"simple1", "range1", "old_style"}
    assert level.queries["range1"].fields == "multirow"


@pytest.mark.parametrize(
    ("cql", "columns", "partition", "clustering"),
    [
        ("CREATE TABLE t (k int PRIMARY KEY, v text)", ["k", "v"], ["k"], []),
        (
            "CREATE TABLE IF NOT EXISTS ks.t (a text, b int, c bigint, d map<text, int>, "
            "PRIMARY KEY ((a, b), c))",
            ["a", "b", "c", "d"],
            ["a", "b"],
            ["c"],
        ),
        (
            'CREATE TABLE t ("Key" text, "Val" blob, PRIMARY KEY ("Key"))',
            ["Key", "Val"],
            ["Key"],
            [],
        ),
        (
            "create table T (K text, C int, V text, primary key (K, C)) with comment='x'",
            ["k", "c", "v"],
            ["k"],
            ["c"],
        ),
    ],
)
def test_table_definitions(
    cql: str, columns: list[str], partition: list[str], clustering: list[str]
) -> None:
    parsed, pk, ck = parse_table_definition(cql)
    assert [c.name for c in parsed] == columns
    assert (pk, ck) == (partition, clustering)


def test_schema_is_idempotent_and_qualified(level: StressProfile) -> None:
    keyspace, table = profile_schema_cql(level)
    assert keyspace.startswith("CREATE KEYSPACE IF NOT EXISTS stresscql WITH replication")
    assert table.startswith("CREATE TABLE IF NOT EXISTS stresscql.blogposts (")
    assert "LeveledCompactionStrategy" in table
    already = parse_profile(
        "keyspace: k\ntable: t\ntable_definition: CREATE TABLE IF NOT EXISTS t (a int PRIMARY KEY)"
    )
    assert profile_schema_cql(already) == ["CREATE TABLE IF NOT EXISTS k.t (a int PRIMARY KEY)"]


def test_generators_follow_the_row_model(level: StressProfile) -> None:
    assert [(d.kind, d.max) for d in level.levels()] == [(DistKind.FIXED, 1000)]
    domain = column_generator(level, "domain")
    assert (domain.kind, domain.per_key, domain.level) == (GenKind.TEXT, True, 0)
    assert domain.size is not None
    assert (domain.size.min, domain.size.max) == (5, 100)
    published = column_generator(level, "published_date")
    assert (published.kind, published.per_key, published.level) == (GenKind.BIGINT, True, 1)
    assert published.values is not None
    assert (published.values.min, published.values.max) == (1, 100_000_000_000)  # stress default
    body = column_generator(level, "body")
    assert (body.kind, body.per_key, body.level) == (GenKind.TEXT, True, 1)
    key_int = parse_profile(
        "keyspace: k\ntable: t\ntable_definition: CREATE TABLE t (id bigint PRIMARY KEY, "
        "n int, at timestamp, u uuid, d double)\n"
        "columnspec:\n  - name: n\n    population: uniform(1..50)\n"
    )
    assert column_generator(key_int, "id").kind is GenKind.KEY_BIGINT
    n = column_generator(key_int, "n")
    assert n.values is not None
    assert n.values.max == 50
    at = column_generator(key_int, "at")
    assert at.kind is GenKind.TIMESTAMP
    assert at.values is not None
    assert column_generator(key_int, "u").kind is GenKind.UUID
    assert column_generator(key_int, "d").kind is GenKind.DOUBLE


def test_insert_and_queries(level: StressProfile) -> None:
    insert = insert_statement(level)
    assert insert.cql == (
        "INSERT INTO stresscql.blogposts (domain, published_date, url, author, title, body) "
        "VALUES (?, ?, ?, ?, ?, ?)"
    )
    assert [b.column for b in insert.binds] == [c.name for c in level.columns]
    simple = query_statement(level, level.queries["simple1"])
    assert simple.cql == "select * from stresscql.blogposts where domain = ? LIMIT 1"
    assert [b.column for b in simple.binds] == ["domain"]
    assert simple.binds[0] == insert.binds[0]  # reads find the keys inserts wrote
    ranged = query_statement(level, level.queries["range1"])
    assert [b.column for b in ranged.binds] == ["domain", "published_date"]


def test_operations_with_weights(level: StressProfile) -> None:
    ops = profile_operations(level, {"insert": 9, "simple1": 1}, Consistency.QUORUM)
    assert [(o.name, o.kind, o.weight, o.consistency) for o in ops] == [
        ("insert", OpKind.WRITE, 9, Consistency.QUORUM),
        ("simple1", OpKind.READ, 1, Consistency.QUORUM),
    ]
    insert, simple = ops
    assert insert.batch is not None
    assert (insert.batch.batch_type, insert.batch.select_divisor) == (BatchType.UNLOGGED, 1000)
    assert insert.clustering == simple.clustering == level.levels()
    assert simple.batch is None


def test_a_partition_of_one_row_has_no_levels() -> None:
    profile = parse_profile(
        "keyspace: k\ntable: t\ntable_definition: CREATE TABLE t (k text, c int, v text, "
        "PRIMARY KEY (k, c))\n"
    )
    assert profile.levels() == []
    [op] = profile_operations(profile, {"insert": 1}, Consistency.ONE)
    assert op.clustering == []
    assert [b.level for b in op.statements[0].binds] == [0, 0, 0]
    assert op.batch is not None
    assert op.batch.batch_type is BatchType.LOGGED  # stress's default


def test_command_line_insert_options_win() -> None:
    profile = parse_profile(LEVEL_PROFILE)
    merged = apply_insert_options(
        profile, {"partitions": "fixed(2)", "select-ratio": "fixed(1)/10", "batchtype": "logged"}
    )
    assert merged.insert.partitions.min == 2
    assert merged.insert.select_divisor == 10
    assert merged.insert.batchtype is BatchType.LOGGED
    assert apply_insert_options(profile, {}) is profile
    same = apply_insert_options(profile, {"visits": "fixed(1)"})
    assert same.insert == profile.insert
    for options, message in [
        ({"batchsize": "fixed(1)"}, "unknown option 'batchsize'"),
        ({"batchtype": "atomic"}, "'atomic' is not a batch type"),
        ({"visits": "fixed(5)"}, "cannot run visits other than its default"),
        ({"select-ratio": "often"}, "-insert (profile ).select-ratio"),
    ]:
        with pytest.raises(WorkloadSyntaxError, match=re.escape(message)):
            apply_insert_options(profile, options)


def test_batches_stress_would_refuse_are_refused() -> None:
    wide = LEVEL_PROFILE.replace("select: fixed(1)/1000", "select: fixed(1)/1").replace(
        "partitions: fixed(1)", "partitions: fixed(100)"
    )
    logged = parse_profile(wide.replace("batchtype: UNLOGGED", "batchtype: LOGGED"))
    with pytest.raises(WorkloadSyntaxError, match="at most 65,535"):
        profile_operations(logged, {"insert": 1}, Consistency.ONE)
    unlogged = parse_profile(wide)
    [op] = profile_operations(unlogged, {"insert": 1}, Consistency.ONE)
    assert op.batch is not None
    huge = parse_profile(wide.replace("fixed(100)", "fixed(2000)"))
    with pytest.raises(WorkloadSyntaxError, match="casslab allows 1,000,000"):
        profile_operations(huge, {"insert": 1}, Consistency.ONE)


def test_counter_table_inserts_with_update() -> None:
    profile = parse_profile(
        "keyspace: k\ntable: c\ntable_definition: CREATE TABLE c (k text PRIMARY KEY, hits counter)"
    )
    [op] = profile_operations(profile, {"insert": 1}, Consistency.ONE)
    assert op.kind is OpKind.COUNTER_WRITE
    assert op.batch is not None
    assert op.batch.batch_type is BatchType.COUNTER
    assert not op.idempotent
    assert op.statements[0].cql == "UPDATE k.c SET hits = hits + ? WHERE k = ?"
    assert [b.kind for b in op.statements[0].binds] == [GenKind.COUNTER_DELTA, GenKind.TEXT]


def test_non_select_query_is_cql_kind() -> None:
    profile = parse_profile(
        "keyspace: k\ntable: t\ntable_definition: CREATE TABLE t (k text PRIMARY KEY, v text)\n"
        "queries:\n  wipe: {cql: 'DELETE FROM t WHERE k = ?'}\n"
    )
    [op] = profile_operations(profile, {"wipe": 1}, Consistency.ONE)
    assert op.kind is OpKind.CQL
    assert op.statements[0].cql == "DELETE FROM k.t WHERE k = ?"


def test_load_profile(tmp_path: Path) -> None:
    path = tmp_path / "level.yaml"
    path.write_text(LEVEL_PROFILE)
    assert load_profile(path) == parse_profile(LEVEL_PROFILE)


BAD: list[tuple[str, str]] = [
    ("keyspace: [unclosed", "YAML syntax"),
    ("- a\n- b", "expected a mapping"),
    ("keyspace: k\ntable: t", "table_definition: is missing"),
    ("keyspace: k\ntable: t\ntable_definition: DROP TABLE t", "must be one CREATE TABLE statement"),
    ("keyspace: k\ntable: t\ntable_definition: CREATE TABLE t (a int, b int)", "no PRIMARY KEY"),
    (
        "keyspace: k\ntable: t\ntable_definition: CREATE TABLE t (a int PRIMARY KEY)\n"
        "columnspec:\n  - name: zz\n    size: fixed(1)",
        "columnspec names 'zz', which is not a column",
    ),
    (
        "keyspace: k\ntable: t\ntable_definition: CREATE TABLE t (a int PRIMARY KEY)\n"
        "columnspec:\n  - name: a\n    sizes: fixed(1)",
        "unknown key(s) ['sizes']",
    ),
    (
        "keyspace: k\ntable: t\ntable_definition: CREATE TABLE t (a int PRIMARY KEY)\n"
        "columnspec:\n  - name: a\n    size: weird(1)",
        "distribution 'WEIRD'",
    ),
    (
        "keyspace: k\ntable: t\ntable_definition: CREATE TABLE t (a int PRIMARY KEY)\n"
        "queries:\n  q: {fields: samerow}",
        "query 'q' needs cql:",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_profiles(text: str, message: str) -> None:
    with pytest.raises(WorkloadSyntaxError) as raised:
        parse_profile(text, source="bad.yaml")
    assert message in str(raised.value)


def test_bad_operations(level: StressProfile) -> None:
    with pytest.raises(WorkloadSyntaxError, match="'simple2' is not insert or a query"):
        profile_operations(level, {"simple2": 1}, Consistency.ONE)
    types = parse_profile(TYPES_PROFILE, source="cqlstress-example.yaml")
    assert profile_operations(types, {"insert": 1}, Consistency.ONE)[0].statements[0].binds
    limit = parse_profile(
        "keyspace: k\ntable: t\ntable_definition: CREATE TABLE t (a int PRIMARY KEY)\n"
        "queries:\n  q: select * from t where a = ? LIMIT ?\n"
    )
    with pytest.raises(WorkloadSyntaxError, match="LIMIT"):
        profile_operations(limit, {"q": 1}, Consistency.ONE)


def test_a_batch_of_no_partitions_is_refused() -> None:
    profile = parse_profile(LEVEL_PROFILE.replace("partitions: fixed(1)", "partitions: fixed(0)"))
    with pytest.raises(WorkloadSyntaxError, match=r"partitions 0\.\.0 can be 0"):
        profile_operations(profile, {"insert": 1}, Consistency.ONE)
