"""CQL text from user values: names checked, literals escaped, one statement (pure)."""

from __future__ import annotations

import pytest

from casslab.cql_text import (
    class_name_problem,
    cql_name,
    identifier_problem,
    map_literal,
    option_key_problem,
    option_value_problem,
    quote_identifier,
    single_statement_problem,
    string_literal,
)


@pytest.mark.parametrize("name", ["keyspace1", "k", "Ks_1", "a" * 48])
def test_cql_names_are_accepted(name: str) -> None:
    assert identifier_problem(name) is None


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("ks;DROP", "'ks;DROP' is not a CQL name"),
        ("1ks", "'1ks' is not a CQL name"),
        ("_ks", "'_ks' is not a CQL name"),
        ("k s", "'k s' is not a CQL name"),
        ("ké", "'ké' is not a CQL name"),
        ("", "'' is not a CQL name"),
        ("a" * 49, "is 49 characters; Cassandra allows at most 48"),
    ],
)
def test_other_names_are_refused_by_value(name: str, said: str) -> None:
    assert said in (identifier_problem(name) or "")


def test_literals_double_their_quotes() -> None:
    assert string_literal("it's") == "'it''s'"
    assert quote_identifier('a"b') == '"a""b"'
    assert map_literal({"class": "S'}; DROP", "enabled": True, "n": 3}) == (
        "{'class': 'S''}; DROP', 'enabled': 'true', 'n': '3'}"
    )


def test_class_option_names_and_values() -> None:
    assert class_name_problem("org.apache.cassandra.io.compress.LZ4Compressor") is None
    assert "not a class name" in (class_name_problem("Bogus'Compressor") or "")
    assert option_key_problem("sstable_size_in_mb") is None
    assert "not an option name" in (option_key_problem("a'b") or "")
    assert option_value_problem("160") is None
    assert "not an option value" in (option_value_problem("1'}; DROP") or "")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("SELECT * FROM t WHERE a = 'x;y'", None),
        ('SELECT "a;b" FROM t', None),
        ("SELECT * FROM t WHERE a = $$x;y$$", None),
        ("SELECT * FROM t; DROP TABLE t", "a ';' at character 16"),
        ("SELECT * FROM t -- x", "a comment at character 17"),
        ("SELECT * FROM t /* x */", "a comment"),
        ("SELECT * FROM t // x", "a comment"),
        ("SELECT * FROM t WHERE a = 'x", "unclosed ' quote"),
        ("SELECT * FROM t WHERE a = 'x'';DROP", "unclosed ' quote"),
    ],
)
def test_one_statement(text: str, said: str | None) -> None:
    problem = single_statement_problem(text)
    assert (problem is None) if said is None else (said in (problem or ""))


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("standard1", "standard1"),
        ("_k2", "_k2"),
        ("Standard1", '"Standard1"'),
        ("two words", '"two words"'),
        ('say"hi', '"say""hi"'),
    ],
)
def test_a_name_is_written_bare_only_when_cql_reads_it_back_the_same(
    name: str, written: str
) -> None:
    assert cql_name(name) == written
