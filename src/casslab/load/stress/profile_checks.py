"""What a user profile may ask Cassandra to run (pure): profiles travel between people, so
a profile is checked like hostile input before any of its CQL is sent.

- ``keyspace`` and ``table`` are CQL names (:func:`casslab.cql_text.identifier_problem`);
- ``keyspace_definition`` is one ``CREATE KEYSPACE`` of that keyspace, ``table_definition``
  one ``CREATE TABLE`` of that table: never a ``DROP``, an ``ALTER`` of another object, or a
  second statement after a ``;`` or behind a comment;
- ``extra_definitions`` (cassandra-stress's ``CREATE TYPE`` / ``CREATE INDEX``) are not run
  by casslab, so a profile that has them is refused rather than half run;
- every query is one ``SELECT``, ``INSERT``, ``UPDATE`` or ``DELETE``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from casslab.cql_text import identifier_problem, leading_words, single_statement_problem
from casslab.errors import WorkloadSyntaxError

QUERY_VERBS = ("SELECT", "INSERT", "UPDATE", "DELETE")
_NAME = r"(?:\"(?:[^\"]|\"\")+\"|[\w]+)"
_CREATE = r"^\s*CREATE\s+{what}\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:({name})\s*\.\s*)?({name})"


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


def check_extra_definitions(data: Mapping[str, Any], source: str) -> None:
    if data.get("extra_definitions"):
        raise _fail(
            source,
            "extra_definitions (CREATE TYPE / CREATE INDEX) are not run by casslab; create "
            "them with `casslab cqlsh` before the run and remove them from the profile",
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
