"""A user profile column's CQL type as the engine's value generator: every native type,
collections (frozen or not), tuples, UDTs from the profile's ``extra_definitions`` and
vectors. Pure: a :class:`~casslab.load.stress.cql_types.CqlType` in, a
:class:`~casslab.engine_contract.workload_spec.Generator` out.

As in cassandra-stress, a column's ``size:`` bounds the length of text, ascii, varchar and
blob values, and the number of elements of a list, set or map (default ``uniform(4..8)``);
elements of a collection get the default size. A set or map keeps its distinct elements
(keys), so it can hold fewer than its size. Other types take no ``size:``.
"""

from __future__ import annotations

from casslab.engine_contract.workload_spec import (
    DistKind,
    Distribution,
    Generator,
    GenKind,
    UdtName,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.cql_types import CqlType, parse_cql_type
from casslab.load.stress.profile import DEFAULT_SIZE, StressProfile

SCALAR_KINDS = {
    "text": GenKind.TEXT,
    "ascii": GenKind.TEXT,
    "blob": GenKind.BLOB,
    "int": GenKind.INT,
    "bigint": GenKind.BIGINT,
    "double": GenKind.DOUBLE,
    "uuid": GenKind.UUID,
    "timestamp": GenKind.TIMESTAMP,
    "counter": GenKind.COUNTER_DELTA,
    "boolean": GenKind.BOOLEAN,
    "tinyint": GenKind.TINYINT,
    "smallint": GenKind.SMALLINT,
    "varint": GenKind.VARINT,
    "float": GenKind.FLOAT,
    "decimal": GenKind.DECIMAL,
    "date": GenKind.DATE,
    "time": GenKind.TIME,
    "duration": GenKind.DURATION,
    "timeuuid": GenKind.TIMEUUID,
    "inet": GenKind.INET,
}
COLLECTION_KINDS = {
    "list": GenKind.LIST,
    "set": GenKind.SET,
    "map": GenKind.MAP,
    "tuple": GenKind.TUPLE,
    "vector": GenKind.VECTOR,
}
# Kinds whose `size` is a length: the ones `size:` may be given for.
SIZED = frozenset({GenKind.TEXT, GenKind.BLOB, GenKind.LIST, GenKind.SET, GenKind.MAP})
# Numbers whose values follow `population:` (or the key, or the default population).
NUMERIC = frozenset(
    {
        GenKind.INT,
        GenKind.BIGINT,
        GenKind.DOUBLE,
        GenKind.TINYINT,
        GenKind.SMALLINT,
        GenKind.VARINT,
        GenKind.FLOAT,
        GenKind.DECIMAL,
    }
)
# Kinds whose values are a `population:` sample when one is given.
POPULATED = frozenset({GenKind.BOOLEAN, GenKind.DATE, GenKind.TIME, GenKind.INET})
# Every type a column may have, for the error that names the supported ones.
SUPPORTED = "every native CQL type, list, set, map, tuple, vector and UDTs (frozen or not)"


def type_generator(
    profile: StressProfile,
    cql_type: CqlType,
    column: str,
    *,
    size: Distribution | None,
    what: str,
    depth: int = 0,
) -> Generator:
    """The generator of a value of ``cql_type`` named ``column`` (a column, a UDT field or
    a collection element); ``size`` is the length of text, blob or a collection."""
    if depth > 16:
        raise WorkloadSyntaxError(f"{what}: types nest more than 16 deep; is a UDT recursive?")
    if cql_type.udt:
        return _udt_generator(profile, cql_type, column, what=what, depth=depth)
    scalar = SCALAR_KINDS.get(cql_type.name)
    if scalar is not None:
        return Generator(
            kind=scalar, column=column, size=size or DEFAULT_SIZE if scalar in SIZED else None
        )
    kind = COLLECTION_KINDS[cql_type.name]
    names = {GenKind.MAP: ["key", "value"]}.get(kind, ["element"])
    if kind is GenKind.TUPLE:
        names = [str(i) for i in range(len(cql_type.params))]
    items = [
        type_generator(profile, p, n, size=None, what=what, depth=depth + 1)
        for p, n in zip(cql_type.params, names, strict=True)
    ]
    if any(i.kind is GenKind.COUNTER_DELTA for i in items):
        raise WorkloadSyntaxError(f"{what}: a counter cannot be an element of {cql_type.cql()}")
    if kind is GenKind.VECTOR:
        dim = cql_type.dimension or 1
        length = Distribution(kind=DistKind.FIXED, min=dim, max=dim)
    elif kind is GenKind.TUPLE:
        length = None
    else:
        length = size or DEFAULT_SIZE
    return Generator(kind=kind, column=column, size=length, items=items)


def _udt_generator(
    profile: StressProfile, cql_type: CqlType, column: str, *, what: str, depth: int
) -> Generator:
    definition = profile.udts.get(cql_type.name)
    if definition is None:
        known = ", ".join(sorted(profile.udts)) or "none"
        raise WorkloadSyntaxError(
            f"{what}: type {cql_type.cql()!r} is neither a CQL type nor a UDT of the profile "
            f"(UDTs defined in extra_definitions: {known}); casslab generates {SUPPORTED}. "
            "Fix the type, or add CREATE TYPE to extra_definitions:"
        )
    keyspace = cql_type.keyspace or definition.keyspace or profile.keyspace
    items = [
        type_generator(
            profile,
            parse_cql_type(f.cql_type, what=f"{what} (field {f.name} of {definition.name})"),
            f.name,
            size=None,
            what=what,
            depth=depth + 1,
        )
        for f in definition.fields
    ]
    return Generator(
        kind=GenKind.UDT,
        column=column,
        items=items,
        udt=UdtName(keyspace=keyspace, name=definition.name),
    )
