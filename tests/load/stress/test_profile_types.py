"""Every CQL type of a user profile column as the engine's generator, and the errors of
types, sizes and columnspecs casslab cannot generate (table-driven, pure)."""

from __future__ import annotations

import pytest

from casslab.engine_contract.workload_spec import Consistency, DistKind, GenKind
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.cql_types import parse_cql_type
from casslab.load.stress.profile import parse_profile
from casslab.load.stress.profile_cql import (
    column_generator,
    profile_operations,
    profile_schema_cql,
    validated_columns,
)

EXTRA = """
extra_definitions:
  - CREATE TYPE address (street text, zip int, tags frozen<set<ascii>>)
"""


def profile_of(columns: str, extra: str = EXTRA, columnspec: str = "") -> str:
    return (
        "keyspace: ks\ntable: t\n"
        f"table_definition: CREATE TABLE t (k int, c timeuuid, {columns}, "
        "PRIMARY KEY (k, c))\n" + extra + columnspec
    )


# type as written, (kind, item kinds) of its generator
CASES = [
    ("boolean", GenKind.BOOLEAN, []),
    ("tinyint", GenKind.TINYINT, []),
    ("smallint", GenKind.SMALLINT, []),
    ("varint", GenKind.VARINT, []),
    ("float", GenKind.FLOAT, []),
    ("decimal", GenKind.DECIMAL, []),
    ("date", GenKind.DATE, []),
    ("time", GenKind.TIME, []),
    ("duration", GenKind.DURATION, []),
    ("timeuuid", GenKind.TIMEUUID, []),
    ("inet", GenKind.INET, []),
    ("varchar", GenKind.TEXT, []),
    ("ascii", GenKind.TEXT, []),
    ("list<int>", GenKind.LIST, [GenKind.INT]),
    ("frozen<set<text>>", GenKind.SET, [GenKind.TEXT]),
    ("map<timeuuid, double>", GenKind.MAP, [GenKind.TIMEUUID, GenKind.DOUBLE]),
    ("list<frozen<map<int, blob>>>", GenKind.LIST, [GenKind.MAP]),
    ("tuple<int, text, inet>", GenKind.TUPLE, [GenKind.INT, GenKind.TEXT, GenKind.INET]),
    ("frozen<address>", GenKind.UDT, [GenKind.TEXT, GenKind.INT, GenKind.SET]),
    ("vector<float, 3>", GenKind.VECTOR, [GenKind.FLOAT]),
]


@pytest.mark.parametrize(("cql_type", "kind", "items"), CASES)
def test_every_type_has_a_generator(cql_type: str, kind: GenKind, items: list[GenKind]) -> None:
    profile = parse_profile(profile_of(f"v {cql_type}"))
    g = column_generator(profile, "v")
    assert (g.kind, [i.kind for i in g.items]) == (kind, items)
    assert parse_cql_type(cql_type, what="t").name == (
        {GenKind.UDT: "address", GenKind.TEXT: "text" if cql_type == "varchar" else cql_type}
    ).get(kind, kind.value)
    if kind is GenKind.UDT:
        assert g.udt is not None
        assert (g.udt.keyspace, g.udt.name) == ("ks", "address")
        assert [i.column for i in g.items] == ["street", "zip", "tags"]
    if kind is GenKind.VECTOR:
        assert g.size is not None
        assert (g.size.min, g.size.max) == (3, 3)


def test_size_bounds_text_and_collections_and_timeuuids_follow_time() -> None:
    spec = "columnspec:\n  - name: v\n    size: uniform(2..5)\n"
    g = column_generator(parse_profile(profile_of("v list<text>", columnspec=spec)), "v")
    assert g.size is not None
    assert (g.size.min, g.size.max) == (2, 5)
    assert g.items[0].size is not None
    assert g.items[0].size.max == 8  # the default size
    c = column_generator(parse_profile(profile_of("v int")), "c")
    assert c.values is not None
    assert c.values.kind is DistKind.UNIFORM
    assert c.values.min > 10**12  # milliseconds of a plausible time


def test_udts_are_created_in_the_keyspace_before_the_table() -> None:
    cql = profile_schema_cql(parse_profile(profile_of("v frozen<address>")))
    assert cql[0].startswith("CREATE TYPE IF NOT EXISTS ks.address (")
    assert cql[1].startswith("CREATE TABLE IF NOT EXISTS ks.t")


@pytest.mark.parametrize(
    ("columns", "columnspec", "message"),
    [
        ("v map<int>", "", "map takes 2 type parameters, got 1"),
        ("v list<int, int>", "", "list takes 1 type parameter, got 2"),
        ("v vector<float>", "", "is not a vector type"),
        ("v int<3>", "", "int takes no type parameters"),
        ("v frozen<point>", "", "'point' is neither a CQL type nor a UDT of the profile"),
        ("v list", "", "list needs type parameters"),
        ("v int", "columnspec:\n  - name: v\n    size: fixed(3)\n", "v.size: column 'v' is int"),
        ("v int", "columnspec:\n  - name: w\n", "columnspec names 'w', which is not a column"),
    ],
)
def test_bad_types_and_columnspecs_fail_before_anything_runs(
    columns: str, columnspec: str, message: str
) -> None:
    def build() -> None:
        profile = parse_profile(profile_of(columns, columnspec=columnspec), source="p.yaml")
        profile_operations(profile, {"insert": 1}, Consistency.ONE, source="p.yaml")

    with pytest.raises(WorkloadSyntaxError, match=message):
        build()


def test_a_select_checks_the_columns_every_row_it_returns_shares() -> None:
    text = profile_of(
        "v text, s int static", columnspec="columnspec:\n  - name: c\n    cluster: fixed(3)\n"
    )
    profile = parse_profile(text)
    names = lambda cql: [g.column for g in validated_columns(profile, cql)]  # noqa: E731
    assert names("SELECT * FROM t WHERE k = ?") == ["k", "s"]
    assert names("SELECT * FROM t WHERE k = ? AND c = ?") == ["k", "c", "v", "s"]
    assert names("SELECT v, k FROM t WHERE k = ? AND c = ?") == ["v", "k"]
    assert names("SELECT count(*) FROM t WHERE k = ?") == []
    assert names("SELECT * FROM t WHERE c = ? ALLOW FILTERING") == []


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("colunmspec: []\n", "unknown key\\(s\\) colunmspec; a profile has columnspec, "),
        (
            "token_range_queries:\n  all:\n    colums: '*'\n",
            "all: unknown key\\(s\\) colums; a token range query has columns, page_size",
        ),
    ],
)
def test_unknown_profile_keys_are_named(extra: str, message: str) -> None:
    with pytest.raises(WorkloadSyntaxError, match=message):
        parse_profile(profile_of("v int", extra=extra), source="p.yaml")
