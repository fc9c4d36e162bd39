"""cassandra-stress user profiles (YAML): the typed :class:`StressProfile` and its parser.

:func:`parse_profile` is pure (text in, :class:`StressProfile` out); :func:`load_profile`
reads a file. The profile's schema, column generators, inserts and named queries become
engine operations in :mod:`casslab.load.stress.profile_cql`, which also lists how casslab's
row model differs from stress's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from casslab.engine_contract.workload_spec import BatchType, DistKind, Distribution
from casslab.errors import DocumentProblemsError, WorkloadSyntaxError
from casslab.input_files import InputFileError, read_input
from casslab.load.stress.cql_types import UdtDefinition, parse_type_definition
from casslab.load.stress.dist import parse_distribution, parse_ratio_distribution
from casslab.load.stress.profile_checks import (
    check_definition,
    check_extra_definitions,
    check_names,
    check_query,
)
from casslab.load.stress.profile_lwt import insert_condition
from casslab.load.stress.profile_vectors import VectorSpec, parse_vectors
from casslab.load.stress.token_ranges import TokenRangeQuerySpec, parse_token_range_queries
from casslab.record import Record
from casslab.yaml_reader import parse_yaml


class ProfileProblemsError(DocumentProblemsError, WorkloadSyntaxError):
    """A user profile's YAML has problems (syntax, a duplicate key, past a size bound)."""

    subject = "user profile"


DEFAULT_SIZE = Distribution(kind=DistKind.UNIFORM, min=4, max=8)
DEFAULT_POPULATION = Distribution(kind=DistKind.UNIFORM, min=1, max=100_000_000_000)
DEFAULT_CLUSTER = Distribution(kind=DistKind.FIXED, min=1, max=1)
# The top-level keys of a cassandra-stress profile (specname names it; casslab reports
# operations by their own names).
PROFILE_KEYS = frozenset(
    {
        "specname",
        "keyspace",
        "keyspace_definition",
        "table",
        "table_definition",
        "extra_definitions",
        "columnspec",
        "insert",
        "queries",
        "token_range_queries",
        "vectors",  # casslab's: a vector column filled from a dataset (profile_vectors)
    }
)


class TableColumn(Record):
    name: str  # as written in CQL, unquoted
    cql_type: str  # lower case, e.g. "text", "bigint"
    static: bool = False  # one value per partition


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
    condition: str | None = None  # "IF ...": a conditional insert (profile_lwt)


class QuerySpec(Record):
    name: str
    cql: str
    fields: Literal["samerow", "multirow"] = "samerow"


class StressProfile(Record):
    specname: str | None = None  # the profile's name in ops(SPEC.OP=W) (profile_set)
    keyspace: str
    keyspace_definition: str | None = None
    table: str
    table_definition: str
    # More CQL run after the keyspace and before the table (CREATE TYPE, ...), in order.
    extra_definitions: list[str] = Field(default_factory=list)
    udts: dict[str, UdtDefinition] = Field(default_factory=dict)  # by name, from extra CQL
    columns: list[TableColumn]
    partition_key: list[str] = Field(min_length=1)
    clustering: list[str] = Field(default_factory=list)
    columnspec: dict[str, ColumnSpec] = Field(default_factory=dict)
    insert: InsertSpec = Field(default_factory=InsertSpec)
    queries: dict[str, QuerySpec] = Field(default_factory=dict)
    # token_range_queries: bulk reads over the token ring (token_ranges)
    token_range_queries: dict[str, TokenRangeQuerySpec] = Field(default_factory=dict)
    vectors: VectorSpec | None = None  # a vector column filled from a dataset

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
        if not self.levels() or column in self.partition_key or self.column(column).static:
            return 0
        if column in self.clustering:
            return self.clustering.index(column) + 1
        return len(self.clustering)

    def column(self, column: str) -> TableColumn:
        for col in self.columns:
            if col.name == column:
                return col
        raise KeyError(column)

    def type_of(self, column: str) -> str:
        return self.column(column).cql_type


# ---------------------------------------------------------------- parsing


def load_profile(path: Path) -> StressProfile:
    """Read and parse a profile file."""
    try:
        text = read_input(path, what="user profile", fix="check profile=PATH")
    except InputFileError as error:
        raise WorkloadSyntaxError(str(error)) from None
    return parse_profile(text, source=str(path))


def parse_profile(text: str, *, source: str = "<profile>") -> StressProfile:
    """Parse cassandra-stress profile YAML."""
    data = parse_yaml(text, source, ProfileProblemsError)
    if not isinstance(data, dict):
        raise WorkloadSyntaxError(
            f"user profile {source}: expected a mapping with keyspace:, table:"
        )
    unknown = sorted(str(k) for k in set(data) - PROFILE_KEYS)
    if unknown:
        raise WorkloadSyntaxError(
            f"user profile {source}: unknown key(s) {', '.join(unknown)}; a profile has "
            f"{', '.join(sorted(PROFILE_KEYS))}"
        )
    for key in ("keyspace", "table", "table_definition"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise WorkloadSyntaxError(
                f"user profile {source}: {key}: is missing; casslab needs keyspace, table and "
                "table_definition (the CREATE TABLE statement) to generate values"
            )
    check_names(data, source)
    table_definition = data["table_definition"].strip().rstrip(";")
    check_definition(table_definition, "TABLE", data["table"].strip(), source)
    columns, partition_key, clustering = parse_table_definition(table_definition, source=source)
    names = {c.name for c in columns}
    columnspec = _columnspec(data.get("columnspec"), names, source)
    keyspace_definition = data.get("keyspace_definition")
    if keyspace_definition is not None:
        if not isinstance(keyspace_definition, str):
            raise WorkloadSyntaxError(
                f"user profile {source}: keyspace_definition must be a CREATE KEYSPACE statement"
            )
        keyspace_definition = keyspace_definition.strip().rstrip(";")
        check_definition(keyspace_definition, "KEYSPACE", data["keyspace"].strip(), source)
    extra = _extra_definitions(data.get("extra_definitions"), source)
    check_extra_definitions(extra, data["table"].strip(), source)
    udts = {}
    for statement in extra:
        udt = parse_type_definition(statement, source=source)
        if udt is not None:
            udts[udt.name] = udt
    queries = _queries(data.get("queries"), source)
    token_range_queries = parse_token_range_queries(
        data.get("token_range_queries"), [c.name for c in columns], source
    )
    both = sorted(set(queries) & set(token_range_queries) | {"insert"} & set(token_range_queries))
    if both:
        raise WorkloadSyntaxError(
            f"user profile {source}: {', '.join(both)} names both a token range query and "
            "a query (or insert); rename one so ops(NAME=W) says which"
        )
    specname = data.get("specname")
    if specname is not None and (not isinstance(specname, str) or not specname.strip()):
        raise WorkloadSyntaxError(
            f"user profile {source}: specname: must be a name (e.g. specname: blogposts), "
            "used in ops(NAME.insert=1) when a run has several profiles"
        )
    return StressProfile(
        specname=specname.strip() if specname else None,
        keyspace=data["keyspace"].strip(),
        keyspace_definition=keyspace_definition or None,
        table=data["table"].strip(),
        table_definition=table_definition,
        extra_definitions=extra,
        udts=udts,
        columns=columns,
        partition_key=partition_key,
        clustering=clustering,
        columnspec=columnspec,
        insert=_insert(data.get("insert"), source),
        queries=queries,
        token_range_queries=token_range_queries,
        vectors=parse_vectors(data.get("vectors"), source),
    )


def _extra_definitions(raw: Any, source: str) -> list[str]:
    """``extra_definitions:``: one CQL statement, or a list of them."""
    if raw is None:
        return []
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise WorkloadSyntaxError(
            f"user profile {source}: extra_definitions: must be a CQL statement or a list of "
            "them (e.g. - CREATE TYPE address (street text, zip int))"
        )
    return [i.strip().rstrip(";") for i in items if i.strip()]


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
        elif key == "condition" and select == "select":
            values["condition"] = insert_condition(raw, what)
        elif key in _DEFAULT_ONLY:
            default = _DEFAULT_ONLY[key]
            if default is None or raw.replace(" ", "").lower() != default.lower():
                raise WorkloadSyntaxError(
                    f"{what}.{key}={raw}: casslab writes each partition in one visit and "
                    f"cannot run {key} other than its default; remove it"
                )
        else:
            extra = ", condition" if select == "select" else ""
            raise WorkloadSyntaxError(
                f"{what}: unknown option {key!r}; accepted: partitions, {select}, batchtype{extra}"
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
        check_query(str(name), cql.strip().rstrip(";"), source)
        queries[str(name)] = QuerySpec(name=str(name), cql=cql.strip().rstrip(";"), fields=fields)
    return queries


def unquote(name: str) -> str:
    """A CQL identifier as Cassandra stores it: ``"Quoted"`` keeps its case, others are lower."""
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
        name = unquote(col.group(1))
        columns.append(
            TableColumn(name=name, cql_type=col.group(2).strip().lower(), static=bool(col.group(4)))
        )
        if col.group(3):
            primary = name
    if primary is None:
        raise WorkloadSyntaxError(f"user profile {source}: table_definition has no PRIMARY KEY")
    keys = _split_top(primary)
    first = keys[0].strip()
    if first.startswith("("):
        partition = [unquote(k) for k in _split_top(first[1:-1])]
    else:
        partition = [unquote(first)]
    clustering = [unquote(k) for k in keys[1:]]
    known = {c.name for c in columns}
    for key in partition + clustering:
        if key not in known:
            raise WorkloadSyntaxError(f"user profile {source}: key column {key!r} is not declared")
    return columns, partition, clustering
