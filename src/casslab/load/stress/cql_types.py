"""CQL types as a user profile writes them, parsed into :class:`CqlType` trees, and the
``CREATE TYPE`` statements of a profile's ``extra_definitions`` read into UDT fields.

Pure: strings in, records out. ``frozen<...>`` is read and dropped: a frozen and a
non-frozen collection hold the same values. :mod:`casslab.load.stress.profile_cql` turns a
:class:`CqlType` into the engine's generators.
"""

from __future__ import annotations

import re

from pydantic import Field

from casslab.errors import WorkloadSyntaxError
from casslab.record import Record

# Types that take no parameters, by their CQL names (and aliases).
NATIVE_TYPES = frozenset(
    {
        "ascii",
        "bigint",
        "blob",
        "boolean",
        "counter",
        "date",
        "decimal",
        "double",
        "duration",
        "float",
        "inet",
        "int",
        "smallint",
        "text",
        "time",
        "timestamp",
        "timeuuid",
        "tinyint",
        "uuid",
        "varchar",
        "varint",
    }
)
# Parameterised types and how many type parameters each takes.
_ARITY = {"list": 1, "set": 1, "map": 2, "frozen": 1}


class CqlType(Record):
    """``name`` is a native type, ``list``/``set``/``map``/``tuple``/``vector`` with
    ``params``, or a UDT name (``udt`` true, ``keyspace`` when qualified)."""

    name: str
    params: list[CqlType] = Field(default_factory=list)
    dimension: int | None = None  # vector
    udt: bool = False
    keyspace: str | None = None  # a qualified UDT name's keyspace

    def cql(self) -> str:
        """The type as CQL writes it (without ``frozen``)."""
        if self.name == "vector":
            return f"vector<{self.params[0].cql()}, {self.dimension}>"
        if self.params:
            return f"{self.name}<{', '.join(p.cql() for p in self.params)}>"
        return f"{self.keyspace}.{self.name}" if self.keyspace else self.name


def _split_params(body: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in body:
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts


_IDENT = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)'


def _unquote(name: str) -> str:
    if name.startswith('"'):
        return name[1:-1].replace('""', '"')
    return name.lower()


def parse_cql_type(text: str, *, what: str) -> CqlType:
    """Parse a column type such as ``frozen<map<text, list<int>>>`` or ``vector<float, 3>``;
    ``what`` names the column in errors."""
    raw = text.strip()
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\s*<(.*)>", raw, re.S)
    if match is None:
        ident = re.fullmatch(rf"(?:({_IDENT})\s*\.\s*)?({_IDENT})", raw)
        if ident is None:
            raise WorkloadSyntaxError(
                f"{what}: cannot read the type {raw!r}; write a CQL type such as int, "
                "list<text> or frozen<map<text, int>>"
            )
        name = _unquote(ident.group(2))
        if ident.group(1) is None and name in NATIVE_TYPES:
            return CqlType(name="text" if name == "varchar" else name)
        if ident.group(1) is None and name in (*_ARITY, "tuple", "vector"):
            raise WorkloadSyntaxError(
                f"{what}: {name} needs type parameters, e.g. {name}<int"
                + (", int" if name == "map" else "")
                + (", 3" if name == "vector" else "")
                + ">"
            )
        keyspace = _unquote(ident.group(1)) if ident.group(1) else None
        return CqlType(name=name, udt=True, keyspace=keyspace)
    name, params = match.group(1).lower(), _split_params(match.group(2))
    if name in NATIVE_TYPES:
        raise WorkloadSyntaxError(
            f"{what}: {name} takes no type parameters (got {raw!r}); write {name}"
        )
    if name == "vector":
        if len(params) != 2 or not re.fullmatch(r"[0-9]+", params[1]) or int(params[1]) < 1:
            raise WorkloadSyntaxError(
                f"{what}: {raw!r} is not a vector type; write vector<TYPE, DIMENSION> with "
                "a dimension >= 1, e.g. vector<float, 3>"
            )
        return CqlType(
            name="vector", params=[parse_cql_type(params[0], what=what)], dimension=int(params[1])
        )
    if name == "tuple":
        if not all(params):
            raise WorkloadSyntaxError(f"{what}: {raw!r} has an empty tuple component")
        return CqlType(name="tuple", params=[parse_cql_type(p, what=what) for p in params])
    arity = _ARITY.get(name)
    if arity is None:
        raise WorkloadSyntaxError(
            f"{what}: unknown parameterised type {name!r} in {raw!r}; casslab knows list, set, "
            "map, tuple, vector and frozen"
        )
    if len(params) != arity or not all(params):
        raise WorkloadSyntaxError(
            f"{what}: {name} takes {arity} type parameter{'s' if arity > 1 else ''}, "
            f"got {len(params)} in {raw!r}"
            + ("; write map<KEY, VALUE>" if name == "map" else f"; write {name}<TYPE>")
        )
    inner = [parse_cql_type(p, what=what) for p in params]
    if name == "frozen":
        return inner[0]
    return CqlType(name=name, params=inner)


class UdtField(Record):
    name: str
    cql_type: str


class UdtDefinition(Record):
    keyspace: str | None
    name: str
    fields: list[UdtField]


def parse_type_definition(cql: str, *, source: str) -> UdtDefinition | None:
    """A ``CREATE TYPE [IF NOT EXISTS] [ks.]name (field type, ...)`` statement's fields;
    None for any other statement."""
    match = re.match(
        rf"^\s*CREATE\s+TYPE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:({_IDENT})\s*\.\s*)?({_IDENT})\s*\((.*)\)\s*;?\s*$",
        cql,
        re.I | re.S,
    )
    if match is None:
        return None
    fields: list[UdtField] = []
    for item in _split_params(match.group(3)):
        field = re.fullmatch(rf"({_IDENT})\s+(.+)", item.strip(), re.S)
        if field is None:
            raise WorkloadSyntaxError(
                f"user profile {source}: cannot read the field {item!r} of {cql.strip()!r}; "
                "write CREATE TYPE name (field type, ...)"
            )
        fields.append(UdtField(name=_unquote(field.group(1)), cql_type=field.group(2).strip()))
    return UdtDefinition(
        keyspace=_unquote(match.group(1)) if match.group(1) else None,
        name=_unquote(match.group(2)),
        fields=fields,
    )
