"""Default schemas: cassandra-stress ``keyspace1.standard1`` / ``counter1`` and YCSB ``usertable``.

Pure: each function returns CQL text. The stress tables match what cassandra-stress
creates (``key blob`` partition key, ``"C0"..`` blob or counter columns, compression
disabled unless ``-schema compression=`` names a compressor); the YCSB table is the one
the YCSB Cassandra binding documents (``y_id varchar`` key, ``field0..`` varchar).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from casslab.cql_text import map_literal, quote_identifier

STRESS_KEYSPACE = "keyspace1"
STRESS_TABLE = "standard1"
STRESS_COUNTER_TABLE = "counter1"
STRESS_COLUMN_COUNT = 5
STRESS_COLUMN_SIZE = 34  # bytes, FIXED(34)
STRESS_KEY_SIZE = 10  # bytes
STRESS_DEFAULT_OPS = 1_000_000  # population size when n= is not given
STRESS_WRITE_THREADS = 200  # write/counter_write with n= and no -rate
STRESS_RAMP_MIN_THREADS = 4
STRESS_RAMP_MAX_THREADS = 1000
STRESS_REPLICATION_STRATEGY = "SimpleStrategy"

YCSB_KEYSPACE = "ycsb"
YCSB_TABLE = "usertable"
YCSB_KEY_COLUMN = "y_id"
YCSB_KEY_PREFIX = "user"
YCSB_FIELD_PREFIX = "field"
YCSB_TABLE_FIELDS = 10


def stress_column_names(count: int) -> list[str]:
    """``C0`` .. ``C{count-1}``, the stress default column names."""
    return [f"C{i}" for i in range(count)]


def replication_map(strategy: str, options: Mapping[str, str]) -> str:
    """``{'class': 'SimpleStrategy', 'replication_factor': '1'}`` (factor 1 when none given)."""
    merged = dict(options) if options else {"replication_factor": "1"}
    return map_literal({"class": strategy, **merged})


def create_keyspace_cql(keyspace: str, strategy: str, options: Mapping[str, str]) -> str:
    return (
        f"CREATE KEYSPACE IF NOT EXISTS {quote_identifier(keyspace)} WITH replication = "
        f"{replication_map(strategy, options)} AND durable_writes = true"
    )


def _table_options(
    compression: str | None, compaction_strategy: str | None, compaction: Mapping[str, str]
) -> str:
    compress = "{}" if compression is None else map_literal({"class": compression})
    text = f" WITH compression = {compress}"
    if compaction_strategy is not None:
        text += " AND compaction = " + map_literal({"class": compaction_strategy, **compaction})
    return text


def stress_schema_cql(
    *,
    keyspace: str = STRESS_KEYSPACE,
    columns: Sequence[str] = tuple(stress_column_names(STRESS_COLUMN_COUNT)),
    replication_strategy: str = STRESS_REPLICATION_STRATEGY,
    replication_options: Mapping[str, str] | None = None,
    compaction_strategy: str | None = None,
    compaction_options: Mapping[str, str] | None = None,
    compression: str | None = None,
) -> list[str]:
    """The keyspace and both tables cassandra-stress creates for predefined commands."""
    ks = quote_identifier(keyspace)
    options = _table_options(compression, compaction_strategy, compaction_options or {})
    blob_cols = "".join(f", {quote_identifier(c)} blob" for c in columns)
    counter_cols = "".join(f", {quote_identifier(c)} counter" for c in columns)
    return [
        create_keyspace_cql(keyspace, replication_strategy, replication_options or {}),
        f"CREATE TABLE IF NOT EXISTS {ks}.{STRESS_TABLE} "
        f"(key blob PRIMARY KEY{blob_cols}){options}",
        f"CREATE TABLE IF NOT EXISTS {ks}.{STRESS_COUNTER_TABLE} "
        f"(key blob PRIMARY KEY{counter_cols}){options}",
    ]


def ycsb_field_names(count: int, prefix: str = YCSB_FIELD_PREFIX) -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


def ycsb_schema_cql(
    *,
    keyspace: str = YCSB_KEYSPACE,
    table: str = YCSB_TABLE,
    fields: Sequence[str] = tuple(ycsb_field_names(YCSB_TABLE_FIELDS)),
    replication_factor: int = 1,
) -> list[str]:
    """``ycsb.usertable (y_id varchar PRIMARY KEY, field0 varchar, ...)``; the names are
    checked CQL names (:func:`casslab.cql_text.identifier_problem`) by the YCSB parser."""
    cols = "".join(f", {f} varchar" for f in fields)
    return [
        create_keyspace_cql(
            keyspace, "SimpleStrategy", {"replication_factor": str(replication_factor)}
        ),
        f"CREATE TABLE IF NOT EXISTS {quote_identifier(keyspace)}.{table} "
        f"({YCSB_KEY_COLUMN} varchar PRIMARY KEY{cols})",
    ]
