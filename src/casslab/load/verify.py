"""The read-back of acknowledged writes: a compiled spec's ``verify`` block (pure).

:func:`with_verify` adds to a :class:`~casslab.engine_contract.workload_spec.WorkloadSpec` the
statement the engine reads each acknowledged write's key back with after the measured phase (the
engine's summary then carries :class:`~casslab.engine_contract.engine_records.VerifyStats`: keys
checked, lost, unverified). The statement is found from the spec's ``write`` operations, whatever
front end compiled them:

* each writes one row (an ``INSERT INTO <table> (...)`` or ``UPDATE <table> ... WHERE``)
  with exactly one key generator (``key_blob``, ``key_text``, ``key_bigint``): the
  partition key, a function of the key alone. cassandra-stress ``write`` and ``mixed``
  (``standard1``'s ``key``) and YCSB's inserts and updates (``usertable``'s ``y_id``)
  are such writes;
* all write the same table with the same key generator;
* the read-back is ``SELECT <key> FROM <table> WHERE <key> = ? LIMIT 1`` bound to that
  generator: it finds the partition (with clustering columns, any row of it).

What it refuses, with the reason: a workload without ``write`` operations (counter
writes are not verified: a counter's row exists after any increment, so a lost increment
leaves a wrong count, not a missing row), batch writes (user profiles' ``insert``: the
rows a batch wrote are not remembered), a write whose partition key is not one key
generator (a user profile's text or composite partition key), writes to several tables.
Only existence is verified: an update of a key that was already there reads back as found.
"""

from __future__ import annotations

import re

from casslab.cql_text import quote_identifier
from casslab.engine_contract.workload_spec import (
    Consistency,
    Generator,
    GenKind,
    Operation,
    OpKind,
    Statement,
    Verify,
    WorkloadSpec,
)
from casslab.errors import ConfigError

KEY_KINDS = frozenset({GenKind.KEY_BLOB, GenKind.KEY_TEXT, GenKind.KEY_BIGINT})
#: Consistency levels a read can use (Cassandra refuses reads at ANY).
READ_CONSISTENCIES = tuple(c for c in Consistency if c is not Consistency.ANY)

_NAME = r'(?:"[^"]+"|\w+)'
_TABLE = re.compile(rf"^\s*(?:INSERT\s+INTO|UPDATE)\s+({_NAME}(?:\.{_NAME})?)", re.I)


def read_consistency(name: str) -> Consistency:
    """The consistency level named ``name`` (any case) for the read-back; ConfigError
    naming it and the valid names otherwise."""
    valid = ", ".join(c.value for c in READ_CONSISTENCIES)
    try:
        level = Consistency(name.strip().upper())
    except ValueError:
        raise ConfigError(
            f"verify consistency {name!r} is not a consistency level; use one of {valid}"
        ) from None
    if level not in READ_CONSISTENCIES:
        raise ConfigError(
            f"verify consistency {name!r}: Cassandra reads nothing at ANY; use one of {valid}"
        )
    return level


def _target(op: Operation, workload: str) -> tuple[str, Generator]:
    """The table an ordinary write operation writes and its key generator."""

    def refuse(why: str) -> ConfigError:
        return ConfigError(
            f"cannot verify the writes of {workload}: operation {op.name!r} {why}; run it "
            "without verify"
        )

    if op.batch is not None:
        raise refuse(
            "writes batches (a user profile's insert), whose acknowledged rows are not "
            "remembered; verify needs writes of one row per operation"
        )
    if len(op.statements) != 1:
        raise refuse(f"has {len(op.statements)} statements, verify needs one")
    statement = op.statements[0]
    table = _TABLE.match(statement.cql)
    if table is None:
        raise refuse(f"is not an INSERT or UPDATE ({statement.cql[:60]!r})")
    keys = [g for g in statement.binds if g.kind in KEY_KINDS and g.per_key and g.level == 0]
    if len(keys) != 1:
        raise refuse(
            f"binds {len(keys)} key generators (key_blob, key_text, key_bigint); verify "
            "needs a partition key that is exactly one of them"
        )
    return table.group(1), keys[0]


def verify_block(spec: WorkloadSpec, consistency: Consistency, *, workload: str) -> Verify:
    """The ``verify`` block for ``spec``'s writes (see the module docstring)."""
    writes = [op for op in spec.operations if op.kind is OpKind.WRITE]
    if not writes:
        counters = any(op.kind is OpKind.COUNTER_WRITE for op in spec.operations)
        why = (
            "its writes are counter updates, whose rows exist after any increment (a lost "
            "increment is a wrong count, not a missing row)"
            if counters
            else "it has no write operation"
        )
        raise ConfigError(
            f"cannot verify the writes of {workload}: {why}; verify a workload that writes "
            "rows (e.g. stress write or mixed, YCSB load or a)"
        )
    found = [_target(op, workload) for op in writes]
    table, key = found[0]
    for other_table, other_key in found[1:]:
        if other_table != table or other_key != key:
            raise ConfigError(
                f"cannot verify the writes of {workload}: its writes go to {table} and "
                f"{other_table} (or bind different keys); verify one table's writes"
            )
    column = quote_identifier(key.column)
    cql = f"SELECT {column} FROM {table} WHERE {column} = ? LIMIT 1"
    return Verify(consistency=consistency, statement=Statement(cql=cql, binds=[key]))


def with_verify(
    spec: WorkloadSpec, consistency: Consistency | str, *, workload: str = "the workload"
) -> WorkloadSpec:
    """``spec`` with a ``verify`` block that reads back every acknowledged write at
    ``consistency`` (a :class:`Consistency` or its name); ConfigError naming ``workload``
    and the fix when its writes cannot be verified (see the module docstring)."""
    level = consistency if isinstance(consistency, Consistency) else read_consistency(consistency)
    if level is Consistency.ANY:
        read_consistency(level.value)
    block = verify_block(spec, level, workload=workload)
    return WorkloadSpec.model_validate(spec.model_dump() | {"verify": block.model_dump()})
