"""Storage-attached indexes (SAI) in a user profile's ``extra_definitions:`` (pure).

cassandra-stress runs no index statements; casslab takes one kind: an SAI index on a
column of the profile's own table, written as Cassandra 5.0 accepts it::

    CREATE CUSTOM INDEX [IF NOT EXISTS] [name] ON table (column)
        USING 'StorageAttachedIndex' [WITH OPTIONS = {'similarity_function': 'COSINE'}]
    CREATE INDEX [IF NOT EXISTS] [name] ON table (column) USING 'sai' [WITH OPTIONS = {...}]

The table is named without its keyspace (the profile's keyspace is added); the index is
created after the table, ``IF NOT EXISTS``. Legacy secondary indexes, indexes on other
tables, and anything after the options are refused.
"""

from __future__ import annotations

import re

from casslab.errors import WorkloadSyntaxError

_NAME = r"(?:\"(?:[^\"]|\"\")+\"|\w+)"
_SAI = re.compile(
    rf"^\s*CREATE\s+(?:CUSTOM\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{_NAME}\s+)?"
    rf"ON\s+(?P<table>{_NAME})\s*\(\s*(?P<column>{_NAME})\s*\)\s+"
    r"USING\s+'(?P<using>[^']*)'"
    r"(?P<options>\s+WITH\s+OPTIONS\s*=\s*\{[^{};]*\})?\s*$",
    re.I | re.S,
)
_SAI_CLASSES = (
    "sai",
    "storageattachedindex",
    "org.apache.cassandra.index.sai.storageattachedindex",
)


def is_index(text: str) -> bool:
    return re.match(r"^\s*CREATE\s+(?:CUSTOM\s+)?INDEX\b", text, re.I) is not None


def _unquoted(name: str) -> str:
    name = name.strip()
    if name.startswith('"'):
        return name[1:-1].replace('""', '"')
    return name.lower()


def sai_column(text: str, table: str, source: str) -> str:
    """The column an SAI index statement indexes, or WorkloadSyntaxError saying why the
    statement is not one casslab runs."""
    match = _SAI.match(text)
    if match is None or match.group("using").lower() not in _SAI_CLASSES:
        raise WorkloadSyntaxError(
            f"user profile {source}: extra_definitions: {text!r} is not an SAI index; casslab "
            "runs CREATE CUSTOM INDEX ON table (column) USING 'StorageAttachedIndex' [WITH "
            "OPTIONS = {...}] (or CREATE INDEX ... USING 'sai'); legacy CREATE INDEX "
            "statements and other objects: create them with `casslab cqlsh` before the run"
        )
    if _unquoted(match.group("table")) not in (table, table.lower()):
        raise WorkloadSyntaxError(
            f"user profile {source}: extra_definitions: the index is on table "
            f"{match.group('table')!r}, not the profile's table {table!r}; index the "
            "profile's own table, named without its keyspace"
        )
    return _unquoted(match.group("column"))


def index_cql(text: str, qualified_table: str) -> str:
    """The statement as run: ``IF NOT EXISTS``, the table qualified by its keyspace."""
    match = _SAI.match(text)
    assert match is not None, "checked by sai_column"
    name = (match.group("name") or "").strip()
    custom = "CUSTOM " if re.match(r"^\s*CREATE\s+CUSTOM", text, re.I) else ""
    options = match.group("options") or ""
    return (
        f"CREATE {custom}INDEX IF NOT EXISTS {name + ' ' if name else ''}ON {qualified_table} "
        f"({match.group('column')}) USING '{match.group('using')}'{options}"
    )
