"""What a user profile may ask Cassandra to run (pure): profiles travel between people, so
a profile is checked like hostile input before any of its CQL is sent.

- ``keyspace`` and ``table`` are CQL names (:func:`casslab.cql_text.identifier_problem`);
- ``keyspace_definition`` is one ``CREATE KEYSPACE`` of that keyspace, ``table_definition``
  one ``CREATE TABLE`` of that table: never a ``DROP``, an ``ALTER`` of another object, or a
  second statement after a ``;`` or behind a comment;
- each of ``extra_definitions`` is one ``CREATE TYPE`` (the user-defined types the table's
  columns use, created in the profile's keyspace before the table) or one ``CREATE
  [CUSTOM] INDEX`` on the profile's table (a storage-attached index, ``USING 'sai'``, or a
  legacy secondary index, created after the table); anything else is refused rather than
  run;
- every query is one ``SELECT``, ``INSERT``, ``UPDATE`` or ``DELETE``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from casslab.cql_text import identifier_problem, leading_words, single_statement_problem
from casslab.errors import WorkloadSyntaxError

QUERY_VERBS = ("SELECT", "INSERT", "UPDATE", "DELETE")
_NAME = r"(?:\"(?:[^\"]|\"\")+\"|[\w]+)"
_CREATE = r"^\s*CREATE\s+{what}\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:({name})\s*\.\s*)?({name})"
# CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON [keyspace.]table (: groups keyspace, table.
INDEX = re.compile(
    rf"^\s*CREATE\s+(?:CUSTOM\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:(?!ON\b){_NAME}\s+)?"
    rf"ON\s+(?:({_NAME})\s*\.\s*)?({_NAME})\s*\(",
    re.I,
)


def _unquoted(name: str) -> str:
    if name.startswith('"') and name.endswith('"') and len(name) >= 2:
        return name[1:-1].replace('""', '"')
    return name.lower()


def _fail(source: str, message: str) -> WorkloadSyntaxError:
    return WorkloadSyntaxError(f"user profile {source}: {message}")


def check_names(data: Mapping[str, Any], source: str) -> None:
    """``keyspace:`` and ``table:`` are CQL names."""
    for key in ("keyspace", "table"):
        problem = identifier_problem(str(data[key]).strip())
        if problem is not None:
            raise _fail(source, f"{key}: {problem}")


def check_definition(text: str, what: str, name: str, source: str) -> None:
    """``text`` is one ``CREATE <what>`` of ``name`` (``what``: KEYSPACE or TABLE)."""
    key = f"{what.lower()}_definition"
    problem = single_statement_problem(text)
    if problem is not None:
        raise _fail(source, f"{key}: {problem}; give the one CREATE {what} statement")
    pattern = _CREATE.format(what=what, name=_NAME)
    match = re.match(pattern, text, re.I)
    if match is None:
        raise _fail(
            source,
            f"{key} must be one CREATE {what} statement, got one starting "
            f"{leading_words(text, 3)!r}",
        )
    created = _unquoted(match.group(2))
    if created != name.lower() and created != name:
        raise _fail(
            source,
            f"{key} creates {what.lower()} {created!r}, but the profile's {what.lower()}: is "
            f"{name!r}; make them the same",
        )


def check_extra_definitions(statements: Sequence[str], table: str, source: str) -> None:
    """Each statement is one ``CREATE TYPE`` of a type in the profile's keyspace or one
    ``CREATE [CUSTOM] INDEX`` on the profile's ``table``."""
    for text in statements:
        problem = single_statement_problem(text)
        if problem is not None:
            raise _fail(
                source, f"extra_definitions: {problem}; give one CREATE TYPE or CREATE INDEX each"
            )
        index = INDEX.match(text)
        if index is not None:
            _check_index(index, table, source)
            _check_index_class(text, source)
            continue
        match = re.match(_CREATE.format(what="TYPE", name=_NAME), text, re.I)
        if match is None:
            raise _fail(
                source,
                "extra_definitions: each must be one CREATE TYPE statement (the types the "
                "table uses) or one CREATE INDEX on the profile's table, got one starting "
                f"{leading_words(text, 3)!r}; create other objects with `casslab cqlsh` before "
                "the run",
            )
        if match.group(1) is not None:
            raise _fail(
                source,
                f"extra_definitions: CREATE TYPE {match.group(1)}.{match.group(2)} names a "
                "keyspace; leave it out (types are created in the profile's keyspace)",
            )


def _check_index(match: re.Match[str], table: str, source: str) -> None:
    keyspace, indexed = match.group(1), _unquoted(match.group(2))
    if keyspace is not None:
        raise _fail(
            source,
            f"extra_definitions: CREATE INDEX ... ON {keyspace}.{match.group(2)} names a "
            "keyspace; leave it out (indexes are created on the profile's table)",
        )
    if indexed not in (table, table.lower()):
        raise _fail(
            source,
            f"extra_definitions: CREATE INDEX ... ON {match.group(2)}: a profile indexes its "
            f"own table, {table!r}; write ON {table}",
        )


# The index implementations a profile may create: SAI (5.0) and the legacy secondary index
# ('legacy_local_table' or no USING), as Cassandra names them; never an arbitrary class.
_INDEX_CLASSES = (
    "sai",
    "storageattachedindex",
    "org.apache.cassandra.index.sai.storageattachedindex",
    "legacy_local_table",
)
_USING = re.compile(r"\)\s*USING\s+'([^']*)'", re.I)


def _check_index_class(text: str, source: str) -> None:
    using = _USING.search(text)
    if using is not None and using.group(1).lower() not in _INDEX_CLASSES:
        raise _fail(
            source,
            f"extra_definitions: USING {using.group(1)!r} is not an index casslab creates; "
            "write USING 'sai' (storage-attached) or USING 'legacy_local_table' (or no USING: "
            "a legacy secondary index)",
        )


def check_query(name: str, cql: str, source: str) -> None:
    """A query is one SELECT, INSERT, UPDATE or DELETE."""
    problem = single_statement_problem(cql)
    if problem is not None:
        raise _fail(source, f"query {name!r}: {problem}; give one statement")
    verb = leading_words(cql, 1)
    if verb not in QUERY_VERBS:
        raise _fail(
            source,
            f"query {name!r} is a {verb or 'blank'} statement; a query must be one of "
            f"{', '.join(QUERY_VERBS)}",
        )
