"""A cassandra-stress user profile as engine statements: schema, column generators, inserts
and named queries. Pure: a :class:`~casslab.load.stress.profile.StressProfile` in, records out.

:func:`profile_operations` turns a profile and ``ops(...)`` weights into engine operations;
:func:`profile_schema_cql` gives its ``CREATE`` statements.

How casslab maps a profile onto the engine (documented differences from stress):

* A partition has rows as in stress: clustering column *i* has ``cluster`` values per
  partition (drawn once per partition), so the partition has their product in rows. Values
  are a function of ``(seed, partition key, the row's positions down to that column)``:
  partition-key columns of the key, a clustering column of its prefix of the row, regular
  columns of the whole row. A query bound by a clustering column picks a row that exists.
  stress draws a count per parent value; casslab draws one count per level and partition.
* ``insert`` writes, per operation, ``partitions`` partitions (the first is the cycle's
  key; more are drawn from the population) and of each a ``select`` share of its rows (at
  least one), in one batch of ``batchtype`` (default ``LOGGED``, as stress; counter tables
  always ``COUNTER``). A batch of one row goes as a plain statement. The rows are chosen
  uniformly without replacement; stress includes each row with that chance.
* ``n=`` counts operations (stress counts partitions; the same with ``partitions: fixed(1)``).
* Column types: every CQL type (:mod:`casslab.load.stress.profile_types`). A static
  column is a function of the partition key.
* Lightweight transactions (``IF`` in a query or ``insert: condition:``):
  :mod:`casslab.load.stress.profile_lwt`.
* Token range queries (``token_range_queries:``, ``-tokenrange``):
  :mod:`casslab.load.stress.token_ranges`.
* Vector search (``vectors:``, ``ORDER BY v ANN OF ?``) and SAI indexes in
  ``extra_definitions:``: :mod:`casslab.load.stress.profile_vectors`, ``profile_checks``.
* A ``SELECT`` query checks the columns it returns by value (unless ``-errors
  skipReadValidation``): those that every row it can return shares, i.e. partition-key
  and static columns, clustering columns bound with ``=`` and, when the whole primary key
  is bound, every column.
"""

from __future__ import annotations

import re

from casslab.cql_text import cql_name
from casslab.engine_contract.workload_spec import (
    BatchType,
    Consistency,
    DistKind,
    Distribution,
    Generator,
    GenKind,
    InsertBatch,
    Operation,
    OpKind,
    Statement,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.cql_types import parse_cql_type
from casslab.load.stress.profile import DEFAULT_POPULATION, QuerySpec, StressProfile, unquote
from casslab.load.stress.profile_checks import INDEX
from casslab.load.stress.profile_lwt import (
    check_read_first,
    condition_at,
    conditional_insert,
    read_first,
)
from casslab.load.stress.profile_types import NUMERIC, POPULATED, SIZED, type_generator
from casslab.load.stress.profile_vectors import (
    ann_column,
    ann_recall_k,
    base_vector,
    query_vector,
)
from casslab.load.stress.token_ranges import token_range_operation

INT_POPULATION = Distribution(kind=DistKind.UNIFORM, min=1, max=2**31 - 1)
# A LOGGED batch holds at most 65535 rows (stress refuses more); any batch at most a million.
MAX_LOGGED_BATCH_ROWS = 65_535
MAX_BATCH_ROWS = 1_000_000
# 2017-07-14 .. 2023-11-14 in ms: timestamps stay in a plausible range.
DEFAULT_TIMESTAMPS = Distribution(
    kind=DistKind.UNIFORM, min=1_500_000_000_000, max=1_700_000_000_000
)


def _qualified(profile: StressProfile) -> str:
    return f"{cql_name(profile.keyspace)}.{cql_name(profile.table)}"


def _if_not_exists(cql: str, what: str) -> str:
    return re.sub(
        rf"^\s*CREATE\s+{what}\s+(?!IF\s+NOT\s+EXISTS)",
        f"CREATE {what} IF NOT EXISTS ",
        cql,
        flags=re.I,
    )


def profile_schema_cql(profile: StressProfile) -> list[str]:
    """``CREATE KEYSPACE``, the types, ``CREATE TABLE`` and the indexes on it (made
    idempotent, names qualified by the keyspace)."""
    statements: list[str] = []
    if profile.keyspace_definition:
        statements.append(_if_not_exists(profile.keyspace_definition, "KEYSPACE"))
    indexes = [e for e in profile.extra_definitions if INDEX.match(e)]
    for extra in profile.extra_definitions:
        if extra in indexes:
            continue
        extra = _if_not_exists(extra, "TYPE")
        statements.append(
            re.sub(
                r"^(\s*CREATE\s+TYPE\s+IF\s+NOT\s+EXISTS\s+)([\w\"]+)(\s*\()",
                lambda m: f"{m.group(1)}{cql_name(profile.keyspace)}.{m.group(2)}{m.group(3)}",
                extra,
                flags=re.I,
            )
        )
    table = _if_not_exists(profile.table_definition, "TABLE")
    table = re.sub(
        r"^(\s*CREATE\s+TABLE\s+IF\s+NOT\s+EXISTS\s+)([\w\"]+)(\s*\()",
        lambda m: m.group(1) + _qualified(profile) + m.group(3),
        table,
        flags=re.I,
    )
    statements.append(table)
    statements += [_index_cql(profile, index) for index in indexes]
    return statements


def _index_cql(profile: StressProfile, cql: str) -> str:
    """``CREATE [CUSTOM] INDEX IF NOT EXISTS [name] ON keyspace.table (...)``."""
    cql = re.sub(
        r"^\s*CREATE\s+(CUSTOM\s+)?INDEX\s+(?!IF\s+NOT\s+EXISTS)",
        lambda m: f"CREATE {m.group(1) or ''}INDEX IF NOT EXISTS ",
        cql.strip().rstrip(";"),
        flags=re.I,
    )
    return re.sub(r"\bON\s+[\w\"]+\s*\(", f"ON {_qualified(profile)} (", cql, count=1, flags=re.I)


def column_generator(profile: StressProfile, column: str, *, source: str = "") -> Generator:
    """The generator of one column's value (see the module docstring for the model)."""
    what = f"user profile {source}: column {column!r}"
    if profile.vectors is not None and column == profile.vectors.column:
        return base_vector(column)
    cql_type = parse_cql_type(profile.type_of(column), what=what)
    spec = profile.spec_of(column)
    given = spec.model_fields_set if column in profile.columnspec else set()
    base = type_generator(profile, cql_type, column, size=spec.size, what=what)
    kind = base.kind
    if "size" in given and kind not in SIZED:
        raise WorkloadSyntaxError(
            f"user profile {source}: columnspec {column}.size: column {column!r} is "
            f"{cql_type.cql()}, which has no size; size: bounds the length of text, ascii, "
            "varchar, blob, list, set and map values. Remove size: from that columnspec entry"
        )
    level = profile.level_of(column)
    per_key = True
    values: Distribution | None = None
    explicit = "population" in given
    if kind is GenKind.COUNTER_DELTA:
        values, per_key = Distribution(kind=DistKind.FIXED, min=1, max=1), False
    elif kind in (GenKind.TIMESTAMP, GenKind.TIMEUUID):
        values = spec.population if explicit else DEFAULT_TIMESTAMPS
    elif kind in POPULATED and explicit:
        values = spec.population
    elif kind in NUMERIC and column not in profile.partition_key:
        if explicit:
            values = spec.population
        elif level > 0:
            values = INT_POPULATION if kind is GenKind.INT else DEFAULT_POPULATION
    if column in profile.partition_key and kind is GenKind.BIGINT:
        kind = GenKind.KEY_BIGINT
    return base.model_copy(
        update={"kind": kind, "values": values, "per_key": per_key, "level": level}
    )


def check_columns(profile: StressProfile, *, source: str = "") -> None:
    """Every column's type and columnspec can be generated (errors before anything runs)."""
    for col in profile.columns:
        column_generator(profile, col.name, source=source)


_SELECT = re.compile(r"^\s*SELECT\s+(.*?)\s+FROM\s", re.I | re.S)
_EQ = re.compile(r'("[^"]+"|[A-Za-z_][A-Za-z0-9_]*)\s*=\s*\?')


def validated_columns(profile: StressProfile, cql: str, *, source: str = "") -> list[Generator]:
    """The columns a ``SELECT`` returns that every row it can return shares (the module
    docstring), as generators; empty for other statements."""
    match = _SELECT.match(cql)
    if match is None:
        return []
    known = [c.name for c in profile.columns]
    selected = match.group(1).strip()
    if selected == "*":
        names = known
    else:
        names = [unquote(n) for n in selected.split(",")]
        if not all(n in known for n in names):
            return []  # functions, aliases: nothing to compare by name
    bound = {unquote(m.group(1)) for m in _EQ.finditer(cql)}
    if not set(profile.partition_key) <= bound:
        return []
    depth = 0
    for column in profile.clustering:
        if column not in bound:
            break
        depth += 1
    deepest = len(profile.clustering)
    shared = [
        n
        for n in names
        if n in profile.partition_key
        or profile.column(n).static
        or (n in profile.clustering and profile.clustering.index(n) < depth)
        or depth == deepest
        or not profile.levels()
    ]
    return [column_generator(profile, n, source=source) for n in shared]


def insert_statement(profile: StressProfile, *, source: str = "") -> Statement:
    """One row: ``INSERT`` of every column, or ``UPDATE .. SET c = c + ?`` for counters."""
    counters = [c.name for c in profile.columns if c.cql_type == "counter"]
    keys = profile.partition_key + profile.clustering
    if counters:
        sets = ", ".join(f"{cql_name(c)} = {cql_name(c)} + ?" for c in counters)
        where = " AND ".join(f"{cql_name(k)} = ?" for k in keys)
        cql = f"UPDATE {_qualified(profile)} SET {sets} WHERE {where}"
        order = counters + keys
    else:
        order = [c.name for c in profile.columns]
        marks = ", ".join("?" for _ in order)
        names = ", ".join(cql_name(c) for c in order)
        cql = f"INSERT INTO {_qualified(profile)} ({names}) VALUES ({marks})"
    return Statement(cql=cql, binds=[column_generator(profile, c, source=source) for c in order])


_BIND = re.compile(r'("[^"]+"|[A-Za-z_][A-Za-z0-9_]*)\s*(?:=|!=|<=|>=|<|>|\bIN\b)\s*\?', re.I)


def query_statement(profile: StressProfile, query: QuerySpec, *, source: str = "") -> Statement:
    """A named query with each ``?`` bound to the generator of the column it is compared with."""
    cql = re.sub(
        rf"\b(FROM|INTO|UPDATE)\s+{re.escape(profile.table)}\b",
        lambda m: f"{m.group(1)} {_qualified(profile)}",
        query.cql,
        flags=re.I,
    )
    placed: list[tuple[int, Generator]] = []
    known = {c.name for c in profile.columns}
    for match in _BIND.finditer(cql):
        column = unquote(match.group(1))
        if column not in known:
            raise WorkloadSyntaxError(
                f"user profile {source}: query {query.name!r} binds {match.group(1)!r}, "
                "which is not a column of the table"
            )
        placed.append((match.end(), column_generator(profile, column, source=source)))
    ann = ann_column(cql)
    if ann is not None:
        if profile.vectors is None or ann[0] != profile.vectors.column:
            raise WorkloadSyntaxError(
                f"user profile {source}: query {query.name!r} searches ORDER BY {ann[0]} ANN "
                "OF ?; name that column in vectors: column: so the query vectors come from "
                "its dataset"
            )
        placed.append((ann[1], query_vector(ann[0])))
    binds = [g for _, g in sorted(placed, key=lambda p: p[0])]
    if len(binds) != cql.count("?"):
        raise WorkloadSyntaxError(
            f"user profile {source}: query {query.name!r}: casslab binds only `column = ?` "
            f"(or !=, <, >, <=, >=, IN, ORDER BY column ANN OF ?) markers; {query.cql!r} "
            "has others (e.g. LIMIT ?). Write "
            "those values into the query"
        )
    return Statement(cql=cql, binds=binds)


def insert_batch(profile: StressProfile, *, counter: bool, source: str = "") -> InsertBatch:
    """The batch an ``insert`` writes; refuses batches stress would refuse, or that would
    not fit in memory."""
    insert = profile.insert
    if insert.partitions.min < 1:
        raise WorkloadSyntaxError(
            f"user profile {source}: insert partitions {insert.partitions.min}.."
            f"{insert.partitions.max} can be 0; an insert writes at least one partition "
            "(e.g. partitions: fixed(1))"
        )
    batch_type = BatchType.COUNTER if counter else (insert.batchtype or BatchType.LOGGED)
    rows = float(insert.partitions.max) * min(1.0, insert.select.max / insert.select_divisor)
    for level in profile.levels():
        rows *= level.max
    if batch_type is BatchType.LOGGED and rows > MAX_LOGGED_BATCH_ROWS:
        raise WorkloadSyntaxError(
            f"user profile {source}: insert writes up to {rows:,.0f} rows per LOGGED batch; a "
            f"batch holds at most {MAX_LOGGED_BATCH_ROWS:,}. Lower insert partitions/select "
            "or use batchtype: UNLOGGED"
        )
    if rows > MAX_BATCH_ROWS:
        raise WorkloadSyntaxError(
            f"user profile {source}: insert writes up to {rows:,.0f} rows per operation "
            f"(partitions x select x cluster sizes); casslab allows {MAX_BATCH_ROWS:,}. Lower "
            "insert select (e.g. select: fixed(1)/1000) or the cluster distributions"
        )
    return InsertBatch(
        partitions=insert.partitions,
        select=insert.select,
        select_divisor=insert.select_divisor,
        batch_type=batch_type,
    )


def lwt_statements(
    profile: StressProfile, query: QuerySpec, statement: Statement, *, source: str = ""
) -> tuple[list[Statement], list[int]]:
    """A conditional query's statements and ``condition_binds``: a read of the row first
    when its ``IF`` conditions are bound (see :mod:`casslab.load.stress.profile_lwt`)."""
    at = condition_at(statement.cql)
    if at is None:
        return [statement], []
    positions = [i for i, m in enumerate(_BIND.finditer(statement.cql)) if m.start() > at]
    if not positions:
        return [statement], []
    columns = [statement.binds[p].column for p in positions]
    check_read_first(query.name, query.fields, columns, source)
    cql, keys = read_first(profile, _qualified(profile), columns)
    read = Statement(cql=cql, binds=[column_generator(profile, k, source=source) for k in keys])
    return [read, statement], positions


def _insert_operation(
    profile: StressProfile,
    weight: float,
    consistency: Consistency,
    serial_consistency: Consistency,
    source: str,
) -> Operation:
    condition = profile.insert.condition
    if condition is None:
        statement = insert_statement(profile, source=source)
    else:
        cql, order = conditional_insert(profile, _qualified(profile), condition, source=source)
        binds = [column_generator(profile, c, source=source) for c in order]
        statement = Statement(cql=cql, binds=binds)
        if profile.insert.partitions.max > 1:
            raise WorkloadSyntaxError(
                f"user profile {source}: insert condition {condition!r} with partitions "
                f"{profile.insert.partitions.min}..{profile.insert.partitions.max}: Cassandra "
                "runs a conditional batch within one partition only. Set insert partitions: "
                "fixed(1)"
            )
    counter = condition is None and statement.cql.startswith("UPDATE")
    return Operation(
        name="insert",
        kind=OpKind.COUNTER_WRITE if counter else OpKind.WRITE,
        weight=weight,
        statements=[statement],
        consistency=consistency,
        serial_consistency=serial_consistency if condition is not None else None,
        idempotent=not counter and condition is None,
        clustering=profile.levels(),
        batch=insert_batch(profile, counter=counter, source=source),
        conditional=condition is not None,
    )


def profile_operations(
    profile: StressProfile,
    weights: dict[str, float],
    consistency: Consistency,
    *,
    serial_consistency: Consistency = Consistency.SERIAL,
    source: str = "",
) -> list[Operation]:
    """Operations for ``ops(insert=W, QUERY=W, ...)``; conditional ones (LWT) run with
    ``serial_consistency``."""
    check_columns(profile, source=source)
    operations: list[Operation] = []
    levels = profile.levels()
    for name, weight in weights.items():
        if name == "insert":
            operations.append(
                _insert_operation(profile, weight, consistency, serial_consistency, source)
            )
            continue
        scan = profile.token_range_queries.get(name)
        if scan is not None:
            operations.append(token_range_operation(profile, scan, weight, consistency))
            continue
        query = profile.queries.get(name)
        if query is None:
            available = ", ".join(["insert", *profile.queries, *profile.token_range_queries])
            raise WorkloadSyntaxError(
                f"user ops({name}=...): {name!r} is not insert or a query of profile {source} "
                "(queries: or token_range_queries:); "
                f"available: {available}"
            )
        statement = query_statement(profile, query, source=source)
        if condition_at(statement.cql) is not None:
            statements, positions = lwt_statements(profile, query, statement, source=source)
            operations.append(
                Operation(
                    name=name,
                    kind=OpKind.CQL,
                    weight=weight,
                    statements=statements,
                    consistency=consistency,
                    serial_consistency=serial_consistency,
                    idempotent=False,
                    clustering=levels,
                    conditional=True,
                    condition_binds=positions,
                )
            )
            continue
        is_select = statement.cql.lstrip().upper().startswith("SELECT")
        operations.append(
            Operation(
                name=name,
                kind=OpKind.READ if is_select else OpKind.CQL,
                weight=weight,
                statements=[statement],
                consistency=consistency,
                idempotent=is_select,
                clustering=levels,
                validate_columns=validated_columns(profile, statement.cql, source=source)
                if is_select
                else [],
                recall_k=ann_recall_k(statement.cql) if is_select else None,
            )
        )
    return operations
