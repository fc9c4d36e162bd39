"""A trial's schema: the workload's CQL rewritten for the experiment (pure).

The workload (a cassandra-stress or YCSB front end) brings its own ``CREATE KEYSPACE`` and
``CREATE TABLE`` statements; the experiment decides the replication of every keyspace and
the table options under test (compaction, compression, …). This module turns the one into
the statements the runner executes, in order, each once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from casslab.cql_text import map_literal

_CREATE_KEYSPACE = re.compile(r"^\s*CREATE\s+KEYSPACE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\S+)", re.I)
_CREATE_TABLE = re.compile(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([^\s(]+)", re.I)


def replication_cql(replication: Mapping[str, str | int]) -> str:
    """``{'class': 'SimpleStrategy', 'replication_factor': 1}`` as a CQL map literal."""
    return map_literal(replication)


def with_replication(statements: Iterable[str], replication: Mapping[str, str | int]) -> list[str]:
    """``statements`` with every ``CREATE KEYSPACE`` given the experiment's replication
    (and ``IF NOT EXISTS``); other statements as they are."""
    out: list[str] = []
    for statement in statements:
        match = _CREATE_KEYSPACE.match(statement)
        if match:
            out.append(
                f"CREATE KEYSPACE IF NOT EXISTS {match.group(1)} "
                f"WITH replication = {replication_cql(replication)}"
            )
        else:
            out.append(statement)
    return out


def tables_of(statements: Iterable[str]) -> list[str]:
    """The tables the ``CREATE TABLE`` statements among ``statements`` create."""
    return [m.group(1) for s in statements if (m := _CREATE_TABLE.match(s))]


def trial_schema(
    workloads: Sequence[Sequence[str]],
    replication: Mapping[str, str | int],
    table_options_cql: str,
) -> list[str]:
    """Every statement a trial runs before its load, in order and each once: the schema of
    each of its workloads (preload, then measure) with the experiment's replication, each
    created table then altered ``WITH table_options_cql`` when there are options."""
    seen: set[str] = set()
    out: list[str] = []
    for schema_cql in workloads:
        statements = with_replication(schema_cql, replication)
        wanted = list(statements)
        if table_options_cql:
            wanted += [f"ALTER TABLE {t} WITH {table_options_cql}" for t in tables_of(statements)]
        for statement in wanted:
            if statement not in seen:
                seen.add(statement)
                out.append(statement)
    return out
