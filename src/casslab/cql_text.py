"""CQL text from user values, never pasted: identifiers checked or quoted, literals escaped.

Every keyspace, table and column name casslab puts into a statement passes
:func:`identifier_problem` (Cassandra's own rule for keyspace and table names: a letter,
then letters, digits and ``_``, at most 48 characters) or is double-quoted by
:func:`quote_identifier`; every option map (replication, compaction, compression, caching)
and every string literal is rendered by :func:`map_literal` / :func:`string_literal`, which
double each single quote, so a value can never end its literal and start a statement of its
own. Class names (a replication strategy, a compaction strategy, a compressor) must look like
Java class names (:func:`class_name_problem`). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

NAME_MAX = 48
"""Cassandra's limit for keyspace and table names (``SchemaConstants.NAME_LENGTH``)."""

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_]*")  # a name CQL keeps as written without quotes
_CLASS_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*", re.ASCII)
_OPTION_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", re.ASCII)


def identifier_problem(name: str) -> str | None:
    """Why ``name`` cannot be a keyspace or table name, or None when it can."""
    if not _IDENTIFIER.fullmatch(name) or not name.isascii():
        return (
            f"{name!r} is not a CQL name: start with a letter, then letters, digits and _ "
            "(e.g. keyspace1)"
        )
    if len(name) > NAME_MAX:
        return f"{name[:20]!r}... is {len(name)} characters; Cassandra allows at most {NAME_MAX}"
    return None


def class_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a Java class name (``LZ4Compressor``,
    ``org.apache.cassandra.locator.SimpleStrategy``), or None when it can."""
    if _CLASS_NAME.fullmatch(name):
        return None
    return (
        f"{name!r} is not a class name: letters, digits, _ and dots only "
        "(e.g. LZ4Compressor or org.apache.cassandra.io.compress.LZ4Compressor)"
    )


def option_key_problem(key: str) -> str | None:
    """Why ``key`` cannot be an option of a CQL map (``sstable_size_in_mb``, ``dc-1``)."""
    if _OPTION_KEY.fullmatch(key):
        return None
    return f"{key!r} is not an option name: letters, digits, _, - and . only"


_OPTION_VALUE = re.compile(r"[A-Za-z0-9_.:/+-]+", re.ASCII)


def option_value_problem(value: str) -> str | None:
    """Why ``value`` cannot be a command-line option value of a CQL map (``160``, ``T4``,
    ``DAYS``): letters, digits and ``_ . : / + -`` only; None when it can."""
    if _OPTION_VALUE.fullmatch(value):
        return None
    return f"{value!r} is not an option value: letters, digits and _ . : / + - only"


def single_statement_problem(text: str) -> str | None:
    """Why ``text`` (a trailing ``;`` removed) is not one CQL statement: a ``;`` or a comment
    outside string literals and quoted names (which could hide a second statement); None
    when it is one."""
    index, quote = 0, ""
    while index < len(text):
        char = text[index]
        if quote:
            if text.startswith(quote, index):
                index += len(quote)
                quote = ""
                continue
        elif text.startswith("$$", index):
            quote = "$$"
            index += 2
            continue
        elif char in "'\"":
            quote = char
        elif char == ";":
            return f"a ';' at character {index + 1} ends the statement and starts another"
        elif text.startswith(("--", "//", "/*"), index):
            return f"a comment at character {index + 1}; remove it"
        index += 1
    if quote:
        return f"an unclosed {quote} quote"
    return None


def leading_words(text: str, count: int) -> str:
    """The first ``count`` words of ``text``, upper case, one space apart."""
    return " ".join(text.split()[:count]).upper()


def quote_identifier(name: str) -> str:
    """``name`` as a double-quoted CQL identifier (case kept, ``"`` doubled)."""
    return '"' + name.replace('"', '""') + '"'


def cql_name(name: str) -> str:
    """``name`` as a statement writes it: bare when CQL would read it back the same (lower
    case letters, digits and _), else double-quoted (:func:`quote_identifier`)."""
    return name if _PLAIN_NAME.fullmatch(name) else quote_identifier(name)


def string_literal(value: object) -> str:
    """``value`` as a CQL string literal: ``'it''s'``."""
    return "'" + str(value).replace("'", "''") + "'"


def map_literal(entries: Mapping[str, object]) -> str:
    """``{'class': 'SimpleStrategy', 'replication_factor': '1'}``: every key and value a
    string literal (booleans as ``true`` / ``false``), in the order given."""
    items = (
        f"{string_literal(key)}: {string_literal(_text(value))}" for key, value in entries.items()
    )
    return "{" + ", ".join(items) + "}"


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
