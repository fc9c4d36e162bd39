"""cassandra-stress user profiles (YAML): schema, column generators, inserts and named queries.

:func:`parse_profile` is pure (text in, :class:`StressProfile` out); :func:`load_profile`
reads a file. :func:`profile_operations` turns a profile and ``ops(...)`` weights into
engine operations.

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
* Supported column types: text, varchar, ascii, blob, int, bigint, double, uuid,
  timestamp, counter.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field

from casslab.errors import WorkloadSyntaxError
from casslab.load.spec import (
    BatchType,
    Consistency,
    DistKind,
    Distribution,
    Generator,
    GenKind,
    InsertBatch,
    Operation,
    OpKind,
    Record,
    Statement,
)
from casslab.load.stress_dist import parse_distribution, parse_ratio_distribution

_TYPE_KINDS = {
    "text": GenKind.TEXT,
    "varchar": GenKind.TEXT,
    "ascii": GenKind.TEXT,
    "blob": GenKind.BLOB,
    "int": GenKind.INT,
    "bigint": GenKind.BIGINT,
    "double": GenKind.DOUBLE,
    "uuid": GenKind.UUID,
    "timestamp": GenKind.TIMESTAMP,
    "counter": GenKind.COUNTER_DELTA,
}
DEFAULT_SIZE = Distribution(kind=DistKind.UNIFORM, min=4, max=8)
DEFAULT_POPULATION = Distribution(kind=DistKind.UNIFORM, min=1, max=100_000_000_000)
DEFAULT_CLUSTER = Distribution(kind=DistKind.FIXED, min=1, max=1)
INT_POPULATION = Distribution(kind=DistKind.UNIFORM, min=1, max=2**31 - 1)
# A LOGGED batch holds at most 65535 rows (stress refuses more); any batch at most a million.
MAX_LOGGED_BATCH_ROWS = 65_535
MAX_BATCH_ROWS = 1_000_000
# 2017-07-14 .. 2023-11-14 in ms: timestamps stay in a plausible range.
DEFAULT_TIMESTAMPS = Distribution(
    kind=DistKind.UNIFORM, min=1_500_000_000_000, max=1_700_000_000_000
)


class TableColumn(Record):
    name: str  # as written in CQL, unquoted
    cql_type: str  # lower case, e.g. "text", "bigint"


class ColumnSpec(Record):
    """One ``columnspec`` entry."""

    name: str
    size: Distribution = DEFAULT_SIZE
    population: Distribution = DEFAULT_POPULATION
    cluster: Distribution = DEFAULT_CLUSTER


class InsertSpec(Record):
    partitions: Distribution = DEFAULT_CLUSTER
    select: Distribution = DEFAULT_CLUSTER
    select_divisor: float = 1.0
    batchtype: BatchType | None = None  # None: LOGGED, as stress


class QuerySpec(Record):
    name: str
    cql: str
    fields: Literal["samerow", "multirow"] = "samerow"


class StressProfile(Record):
    keyspace: str
    keyspace_definition: str | None = None
    table: str
    table_definition: str
    columns: list[TableColumn]
    partition_key: list[str] = Field(min_length=1)
    clustering: list[str] = Field(default_factory=list)
    columnspec: dict[str, ColumnSpec] = Field(default_factory=dict)
    insert: InsertSpec = Field(default_factory=InsertSpec)
    queries: dict[str, QuerySpec] = Field(default_factory=dict)

    def spec_of(self, column: str) -> ColumnSpec:
        return self.columnspec.get(column, ColumnSpec(name=column))

    def levels(self) -> list[Distribution]:
        """Values per partition on each clustering level; empty when every level has one
        value (a partition is one row)."""
        levels = [self.spec_of(c).cluster for c in self.clustering]
        return levels if any(d.max > 1 for d in levels) else []

    def level_of(self, column: str) -> int:
        """0 for partition-key columns; clustering column *i* is level *i*; regular
        columns the deepest level (always 0 when :meth:`levels` is empty)."""
        if not self.levels() or column in self.partition_key:
            return 0
        if column in self.clustering:
            return self.clustering.index(column) + 1
        return len(self.clustering)

    def type_of(self, column: str) -> str:
        for col in self.columns:
            if col.name == column:
                return col.cql_type
        raise KeyError(column)


# ---------------------------------------------------------------- parsing


def load_profile(path: Path) -> StressProfile:
    """Read and parse a profile file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise WorkloadSyntaxError(
            f"user profile: cannot read {str(path)!r} ({exc.strerror}); check profile=PATH"
        ) from None
    return parse_profile(text, source=str(path))


def parse_profile(text: str, *, source: str = "<profile>") -> StressProfile:
    """Parse cassandra-stress profile YAML."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise WorkloadSyntaxError(f"user profile {source}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise WorkloadSyntaxError(
            f"user profile {source}: expected a mapping with keyspace:, table:"
        )
    for key in ("keyspace", "table", "table_definition"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise WorkloadSyntaxError(
                f"user profile {source}: {key}: is missing; casslab needs keyspace, table and "
                "table_definition (the CREATE TABLE statement) to generate values"
            )
    table_definition = data["table_definition"].strip().rstrip(";")
    columns, partition_key, clustering = parse_table_definition(table_definition, source=source)
    names = {c.name for c in columns}
    columnspec = _columnspec(data.get("columnspec"), names, source)
    keyspace_definition = data.get("keyspace_definition")
    return StressProfile(
        keyspace=data["keyspace"].strip(),
        keyspace_definition=keyspace_definition.strip().rstrip(";")
        if keyspace_definition
        else None,
        table=data["table"].strip(),
        table_definition=table_definition,
        columns=columns,
        partition_key=partition_key,
        clustering=clustering,
        columnspec=columnspec,
        insert=_insert(data.get("insert"), source),
        queries=_queries(data.get("queries"), source),
    )


def _columnspec(raw: Any, names: set[str], source: str) -> dict[str, ColumnSpec]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise WorkloadSyntaxError(
            f"user profile {source}: columnspec: must be a list of - name: ..."
        )
    specs: dict[str, ColumnSpec] = {}
    for entry in raw:
        if not isinstance(entry, dict) or "name" not in entry:
            raise WorkloadSyntaxError(
                f"user profile {source}: columnspec entry {entry!r} lacks name:"
            )
        name = str(entry["name"])
        if name not in names:
            raise WorkloadSyntaxError(
                f"user profile {source}: columnspec names {name!r}, which is not a column of the "
                f"table ({', '.join(sorted(names))})"
            )
        values: dict[str, Any] = {"name": name}
        for key in ("size", "population", "cluster"):
            if key in entry:
                values[key] = parse_distribution(
                    str(entry[key]), what=f"user profile {source}: columnspec {name}.{key}"
                )
        unknown = set(entry) - {"name", "size", "population", "cluster"}
        if unknown:
            raise WorkloadSyntaxError(
                f"user profile {source}: columnspec {name}: unknown key(s) {sorted(unknown)}; "
                "accepted: size, population, cluster"
            )
        specs[name] = ColumnSpec.model_validate(values)
    return specs


_BATCH_TYPES = ", ".join(b.name for b in BatchType)


def _batch_type(value: str, what: str) -> BatchType:
    try:
        return BatchType(value.strip().lower())
    except ValueError:
        raise WorkloadSyntaxError(
            f"{what}: {value!r} is not a batch type; use one of {_BATCH_TYPES}"
        ) from None


def _insert(raw: Any, source: str) -> InsertSpec:
    if raw is None:
        return InsertSpec()
    if not isinstance(raw, dict):
        raise WorkloadSyntaxError(f"user profile {source}: insert: must be a mapping")
    what = f"user profile {source}: insert"
    return _insert_options(
        {str(k).lower(): str(v) for k, v in raw.items()}, InsertSpec(), what, select="select"
    )


# Options stress accepts that casslab can only run at their defaults.
_DEFAULT_ONLY = {"visits": "fixed(1)", "revisit": "uniform(1..1M)", "row-population-ratio": None}


def _insert_options(
    options: dict[str, str], base: InsertSpec, what: str, *, select: str
) -> InsertSpec:
    values: dict[str, Any] = base.model_dump()
    for key, raw in options.items():
        if key == "partitions":
            values["partitions"] = parse_distribution(raw, what=f"{what}.partitions")
        elif key == select:
            dist, divisor = parse_ratio_distribution(raw, what=f"{what}.{select}")
            values["select"], values["select_divisor"] = dist, divisor
        elif key == "batchtype":
            values["batchtype"] = _batch_type(raw, f"{what}.batchtype")
        elif key in _DEFAULT_ONLY:
            default = _DEFAULT_ONLY[key]
            if default is None or raw.replace(" ", "").lower() != default.lower():
                raise WorkloadSyntaxError(
                    f"{what}.{key}={raw}: casslab writes each partition in one visit and "
                    f"cannot run {key} other than its default; remove it"
                )
        else:
            raise WorkloadSyntaxError(
                f"{what}: unknown option {key!r}; accepted: partitions, {select}, batchtype"
            )
    return InsertSpec.model_validate(values)


def apply_insert_options(
    profile: StressProfile, options: dict[str, str], *, source: str = ""
) -> StressProfile:
    """The profile with ``-insert partitions=... select-ratio=... batchtype=...`` applied
    (the command line wins over the profile's ``insert:``, as in stress)."""
    if not options:
        return profile
    insert = _insert_options(
        {k.lower(): v for k, v in options.items()},
        profile.insert,
        f"-insert (profile {source})",
        select="select-ratio",
    )
    return profile.model_copy(update={"insert": insert})


def _queries(raw: Any, source: str) -> dict[str, QuerySpec]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise WorkloadSyntaxError(f"user profile {source}: queries: must map names to queries")
    queries: dict[str, QuerySpec] = {}
    for name, body in raw.items():
        if isinstance(body, str):
            cql, fields = body, "samerow"
        elif isinstance(body, dict) and isinstance(body.get("cql"), str):
            cql, fields = body["cql"], str(body.get("fields", "samerow")).lower()
        else:
            raise WorkloadSyntaxError(
                f"user profile {source}: query {name!r} needs cql: (and optionally fields: samerow)"
            )
        if fields not in ("samerow", "multirow"):
            raise WorkloadSyntaxError(
                f"user profile {source}: query {name!r}: fields must be samerow or multirow"
            )
        queries[str(name)] = QuerySpec(name=str(name), cql=cql.strip().rstrip(";"), fields=fields)
    return queries


def _unquote(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] == name[-1] == '"':
        return name[1:-1].replace('""', '"')
    return name.lower()


def _split_top(body: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in body:
        if char in "(<":
            depth += 1
        elif char in ")>":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def parse_table_definition(
    cql: str, *, source: str = "<profile>"
) -> tuple[list[TableColumn], list[str], list[str]]:
    """Columns, partition key and clustering columns of a ``CREATE TABLE`` statement."""
    match = re.match(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[\w.\"]+\s*\(", cql, re.I)
    if match is None:
        raise WorkloadSyntaxError(
            f"user profile {source}: table_definition must start with CREATE TABLE name (...)"
        )
    depth, end = 1, match.end()
    while end < len(cql) and depth:
        depth += {"(": 1, ")": -1}.get(cql[end], 0)
        end += 1
    if depth:
        raise WorkloadSyntaxError(
            f"user profile {source}: table_definition has unbalanced parentheses"
        )
    columns: list[TableColumn] = []
    primary: str | None = None
    for item in _split_top(cql[match.end() : end - 1]):
        pk = re.match(r"^PRIMARY\s+KEY\s*\((.*)\)$", item, re.I | re.S)
        if pk:
            primary = pk.group(1)
            continue
        col = re.match(r'^("[^"]+"|\w+)\s+(.+?)(\s+PRIMARY\s+KEY)?(\s+STATIC)?$', item, re.I | re.S)
        if col is None:
            raise WorkloadSyntaxError(f"user profile {source}: cannot read column {item!r}")
        name = _unquote(col.group(1))
        columns.append(TableColumn(name=name, cql_type=col.group(2).strip().lower()))
        if col.group(3):
            primary = name
    if primary is None:
        raise WorkloadSyntaxError(f"user profile {source}: table_definition has no PRIMARY KEY")
    keys = _split_top(primary)
    first = keys[0].strip()
    if first.startswith("("):
        partition = [_unquote(k) for k in _split_top(first[1:-1])]
    else:
        partition = [_unquote(first)]
    clustering = [_unquote(k) for k in keys[1:]]
    known = {c.name for c in columns}
    for key in partition + clustering:
        if key not in known:
            raise WorkloadSyntaxError(f"user profile {source}: key column {key!r} is not declared")
    return columns, partition, clustering


# ---------------------------------------------------------------- CQL and generators


def _ident(name: str) -> str:
    return name if re.fullmatch(r"[a-z_][a-z0-9_]*", name) else '"' + name.replace('"', '""') + '"'


def _qualified(profile: StressProfile) -> str:
    return f"{_ident(profile.keyspace)}.{_ident(profile.table)}"


def _if_not_exists(cql: str, what: str) -> str:
    return re.sub(
        rf"^\s*CREATE\s+{what}\s+(?!IF\s+NOT\s+EXISTS)",
        f"CREATE {what} IF NOT EXISTS ",
        cql,
        flags=re.I,
    )


def profile_schema_cql(profile: StressProfile) -> list[str]:
    """``CREATE KEYSPACE`` / ``CREATE TABLE`` (made idempotent, table name qualified)."""
    statements: list[str] = []
    if profile.keyspace_definition:
        statements.append(_if_not_exists(profile.keyspace_definition, "KEYSPACE"))
    table = _if_not_exists(profile.table_definition, "TABLE")
    table = re.sub(
        r"^(\s*CREATE\s+TABLE\s+IF\s+NOT\s+EXISTS\s+)([\w\"]+)(\s*\()",
        lambda m: m.group(1) + _qualified(profile) + m.group(3),
        table,
        flags=re.I,
    )
    statements.append(table)
    return statements


def column_generator(profile: StressProfile, column: str, *, source: str = "") -> Generator:
    """The generator of one column's value (see the module docstring for the model)."""
    cql_type = profile.type_of(column)
    kind = _TYPE_KINDS.get(cql_type)
    if kind is None:
        raise WorkloadSyntaxError(
            f"user profile {source}: column {column!r} has type {cql_type!r}, which casslab cannot "
            f"generate yet; supported: {', '.join(sorted(_TYPE_KINDS))}. Change the column type "
            "in table_definition"
        )
    spec = profile.spec_of(column)
    level = profile.level_of(column)
    per_key = True
    values: Distribution | None = None
    size: Distribution | None = None
    explicit = column in profile.columnspec and "population" in spec.model_fields_set
    if kind in (GenKind.TEXT, GenKind.BLOB):
        size = spec.size
    elif kind is GenKind.COUNTER_DELTA:
        values, per_key = Distribution(kind=DistKind.FIXED, min=1, max=1), False
    elif kind is GenKind.TIMESTAMP:
        values = spec.population if explicit else DEFAULT_TIMESTAMPS
    elif kind in (GenKind.INT, GenKind.BIGINT, GenKind.DOUBLE) and column not in (
        profile.partition_key
    ):
        if explicit:
            values = spec.population
        elif level > 0:
            values = INT_POPULATION if kind is GenKind.INT else DEFAULT_POPULATION
    if column in profile.partition_key and kind is GenKind.BIGINT:
        kind = GenKind.KEY_BIGINT
    return Generator(
        kind=kind, column=column, size=size, values=values, per_key=per_key, level=level
    )


def insert_statement(profile: StressProfile, *, source: str = "") -> Statement:
    """One row: ``INSERT`` of every column, or ``UPDATE .. SET c = c + ?`` for counters."""
    counters = [c.name for c in profile.columns if c.cql_type == "counter"]
    keys = profile.partition_key + profile.clustering
    if counters:
        sets = ", ".join(f"{_ident(c)} = {_ident(c)} + ?" for c in counters)
        where = " AND ".join(f"{_ident(k)} = ?" for k in keys)
        cql = f"UPDATE {_qualified(profile)} SET {sets} WHERE {where}"
        order = counters + keys
    else:
        order = [c.name for c in profile.columns]
        marks = ", ".join("?" for _ in order)
        names = ", ".join(_ident(c) for c in order)
        cql = f"INSERT INTO {_qualified(profile)} ({names}) VALUES ({marks})"
    return Statement(cql=cql, binds=[column_generator(profile, c, source=source) for c in order])


_BIND = re.compile(r'("[^"]+"|[A-Za-z_][A-Za-z0-9_]*)\s*(?:=|<=|>=|<|>|\bIN\b)\s*\?', re.I)


def query_statement(profile: StressProfile, query: QuerySpec, *, source: str = "") -> Statement:
    """A named query with each ``?`` bound to the generator of the column it is compared with."""
    cql = re.sub(
        rf"\b(FROM|INTO|UPDATE)\s+{re.escape(profile.table)}\b",
        lambda m: f"{m.group(1)} {_qualified(profile)}",
        query.cql,
        flags=re.I,
    )
    binds: list[Generator] = []
    known = {c.name for c in profile.columns}
    for match in _BIND.finditer(cql):
        column = _unquote(match.group(1))
        if column not in known:
            raise WorkloadSyntaxError(
                f"user profile {source}: query {query.name!r} binds {match.group(1)!r}, "
                "which is not a column of the table"
            )
        binds.append(column_generator(profile, column, source=source))
    if len(binds) != cql.count("?"):
        raise WorkloadSyntaxError(
            f"user profile {source}: query {query.name!r}: casslab binds only `column = ?` "
            f"(or <, >, <=, >=, IN) markers; {query.cql!r} has others (e.g. LIMIT ?). Write "
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


def profile_operations(
    profile: StressProfile,
    weights: dict[str, float],
    consistency: Consistency,
    *,
    source: str = "",
) -> list[Operation]:
    """Operations for ``ops(insert=W, QUERY=W, ...)``."""
    operations: list[Operation] = []
    levels = profile.levels()
    for name, weight in weights.items():
        if name == "insert":
            statement = insert_statement(profile, source=source)
            counter = statement.cql.startswith("UPDATE")
            operations.append(
                Operation(
                    name=name,
                    kind=OpKind.COUNTER_WRITE if counter else OpKind.WRITE,
                    weight=weight,
                    statements=[statement],
                    consistency=consistency,
                    idempotent=not counter,
                    clustering=levels,
                    batch=insert_batch(profile, counter=counter, source=source),
                )
            )
            continue
        query = profile.queries.get(name)
        if query is None:
            available = ", ".join(["insert", *profile.queries]) or "insert"
            raise WorkloadSyntaxError(
                f"user ops({name}=...): {name!r} is not insert or a query of profile {source}; "
                f"available: {available}"
            )
        statement = query_statement(profile, query, source=source)
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
            )
        )
    return operations
