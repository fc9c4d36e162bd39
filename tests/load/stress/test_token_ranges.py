"""Token range queries: a profile's ``token_range_queries:``, ``-tokenrange``, and the
engine operation they make (table-driven, on literal profiles and command lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import (
    Connection,
    Consistency,
    OpKind,
    TokenRangeScan,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.model import StressTokenRange
from casslab.load.stress.parse import parse_stress
from casslab.load.stress.plan_text import plan_lines
from casslab.load.stress.profile import parse_profile
from casslab.load.stress.profile_cql import profile_operations

TABLE = (
    "keyspace: ks\ntable: t\n"
    'table_definition: CREATE TABLE t (a int, "B" text, v blob, PRIMARY KEY ((a, "B")))\n'
)


def profile_with(queries: str) -> str:
    return TABLE + "token_range_queries:\n" + queries


@pytest.mark.parametrize(
    ("queries", "columns", "page_size"),
    [
        ("  all:\n    columns: '*'\n", ["a", '"B"', "v"], 5000),
        ("  all:\n    columns: v, a\n    page_size: 100\n", ["v", "a"], 100),
        ("  all:\n    columns: '\"B\", writetime(v)'\n", ['"B"', "writetime(v)"], 5000),
    ],
)
def test_token_range_queries_are_read(queries: str, columns: list[str], page_size: int) -> None:
    query = parse_profile(profile_with(queries)).token_range_queries["all"]
    assert (query.columns, query.page_size) == (columns, page_size)


@pytest.mark.parametrize(
    ("queries", "message"),
    [
        ("  all:\n    colums: '*'\n", r"all: unknown key\(s\) colums; .* has columns, page_size"),
        ("  all:\n    page_size: 10\n", "all: columns: is missing"),
        ("  all: '*'\n", "all: must be a mapping with columns, page_size"),
        ("  all:\n    columns: w\n", "'w' is not a column of the table; its columns are a, B, v"),
        ("  all:\n    columns: '*'\n    page_size: 0\n", "page_size: 0 is not a row count"),
        ("  all:\n    columns: '*'\n    page_size: ten\n", "page_size: 'ten' is not a row count"),
        ("  - columns: '*'\n", "token_range_queries: must map names to queries"),
        ("  insert:\n    columns: '*'\n", "insert names both a token range query and a query"),
    ],
)
def test_bad_token_range_queries_are_refused(queries: str, message: str) -> None:
    with pytest.raises(WorkloadSyntaxError, match=message):
        parse_profile(profile_with(queries), source="p.yaml")


def test_a_token_range_query_reads_its_pieces_of_the_ring() -> None:
    profile = parse_profile(profile_with("  all:\n    columns: '*'\n    page_size: 100\n"))
    [op] = profile_operations(profile, {"all": 2.0}, Consistency.QUORUM)
    token = 'token(a, "B")'
    assert op.kind is OpKind.TOKEN_RANGE
    assert op.statements[0].cql == (
        f'SELECT {token}, a, "B", v FROM ks.t WHERE {token} > ? AND {token} <= ?'
    )
    assert op.statements[0].binds == []
    assert op.token_range == TokenRangeScan(page_size=100)
    assert (op.weight, op.consistency) == (2.0, Consistency.QUORUM)


def test_ops_names_the_token_range_queries_it_could_run() -> None:
    profile = parse_profile(profile_with("  all:\n    columns: '*'\n"))
    with pytest.raises(WorkloadSyntaxError, match="available: insert, all"):
        profile_operations(profile, {"alll": 1.0}, Consistency.ONE)


@pytest.mark.parametrize(
    ("group", "walk"),
    [
        ("", StressTokenRange()),
        ("-tokenrange", StressTokenRange()),
        ("-tokenrange wrap", StressTokenRange(wrap=True)),
        ("-tokenrange split-factor=4", StressTokenRange(split_factor=4)),
        ("-tokenrange WRAP split-factor=2k", StressTokenRange(wrap=True, split_factor=2000)),
        ("-tokenrange split-factor=0", StressTokenRange()),  # as stress: the ranges stay whole
        ("-tokenrange split-factor=2147483647", StressTokenRange(split_factor=2**31 - 1)),
    ],
)
def test_tokenrange_options(group: str, walk: StressTokenRange) -> None:
    command = parse_stress(f"user profile=p.yaml ops(all=1) n=10 {group}")
    assert command.token_range == walk


@pytest.mark.parametrize(
    ("group", "message"),
    [
        ("-tokenrange wrapp", "unknown option 'wrapp'; accepted form: -tokenrange"),
        ("-tokenrange split=4", "unknown option 'split=4'"),
        ("-tokenrange split-factor=-1", "split-factor is how many pieces"),
        ("-tokenrange split-factor=1.5", "split-factor is how many pieces"),
        ("-tokenrange split-factor=3b", "at most 2147483647"),
        ("-tokenrange wrap=true", "unknown option 'wrap=true'"),
    ],
)
def test_bad_tokenrange_options_are_refused(group: str, message: str) -> None:
    with pytest.raises(WorkloadSyntaxError, match=message):
        parse_stress(f"user profile=p.yaml ops(all=1) n=10 {group}")


def test_the_spec_carries_the_walk(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(profile_with("  all:\n    columns: v\n"))
    command = parse_stress(
        "user profile=p.yaml ops(insert=1,all=1) n=10 -tokenrange wrap split-factor=3"
    )
    spec = command.to_spec(Connection(contact_points=["127.0.0.1:9042"]), profile_dir=tmp_path)
    by_name = {op.name: op for op in spec.operations}
    assert by_name["all"].token_range == TokenRangeScan(wrap=True, split_factor=3)
    assert by_name["insert"].token_range is None
    [head] = [line for line in plan_lines(spec) if line.startswith("  all ")]
    assert head.endswith(
        "each ring range in 3 pieces, pages of 5000 rows, the ring again when done):"
    )
