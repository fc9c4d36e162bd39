"""cassandra-stress token range queries: a profile's ``token_range_queries:``, the
``-tokenrange [wrap] [split-factor=N]`` option group, and the engine operation they make.

In stress (``StressYaml.TokenRangeQueryDef``, ``TokenRangeQuery.java``,
``SettingsTokenRange.java``) a profile names bulk reads::

    token_range_queries:
      all_columns:
        columns: '*'        # or a list: name, value
        page_size: 5000     # the default

and ``ops(all_columns=1)`` runs one: the ring's token ranges (as the nodes own them, the one
that wraps around cut in two), each split into ``split-factor`` equal pieces, are handed
out in ring order; an operation reads one piece, ``SELECT token(pk), COLUMNS FROM t WHERE
token(pk) > START AND token(pk) <= END``, in pages of ``page_size`` rows. Without ``wrap``
the run ends once every piece was read; with it the walk starts over.

How casslab differs: an operation reads its whole piece, every page (stress times each page
as one operation and keeps the rest of the piece for the thread's next one); the warm-up
reads whole pieces too (stress reads the first page of each, at most 100 rows), and the
measured phase starts its walk again from the start of the ring. Pure.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from casslab.cql_text import cql_name
from casslab.engine_contract.workload_spec import (
    Consistency,
    Operation,
    OpKind,
    Statement,
    TokenRangeScan,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.model import StressCommandKind, StressTokenRange
from casslab.load.stress.tokens import expect_options
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.load.stress.profile import StressProfile

DEFAULT_PAGE_SIZE = 5000  # stress's TokenRangeQueryDef.page_size
QUERY_KEYS = ("columns", "page_size")
FORM = "-tokenrange [wrap] [split-factor=N]"
_SPLIT = re.compile(r"^([0-9]+)([bmk]?)$", re.I)
_SUFFIX = {"": 1, "k": 1000, "m": 1_000_000, "b": 1_000_000_000}
_INT_MAX = 2**31 - 1  # stress keeps split-factor in a Java int


class TokenRangeQuerySpec(Record):
    """One ``token_range_queries:`` entry."""

    name: str
    columns: list[str]  # CQL as written; "*" became every column of the table
    page_size: int = DEFAULT_PAGE_SIZE


# ---------------------------------------------------------------- the profile's key


def parse_token_range_queries(
    raw: Any, columns: list[str], source: str
) -> dict[str, TokenRangeQuerySpec]:
    """``token_range_queries:``: name -> ``columns:`` (required) and ``page_size:``.
    ``columns`` are the table's, in order (``'*'`` selects them all)."""
    what = f"user profile {source}: token_range_queries"
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise WorkloadSyntaxError(
            f"{what}: must map names to queries, e.g. all: {{columns: '*', page_size: 5000}}"
        )
    queries: dict[str, TokenRangeQuerySpec] = {}
    for name, body in raw.items():
        here = f"{what}: {name}"
        if not isinstance(body, dict):
            raise WorkloadSyntaxError(
                f"{here}: must be a mapping with {', '.join(QUERY_KEYS)}, e.g. columns: '*'"
            )
        unknown = sorted(str(k) for k in body if k not in QUERY_KEYS)
        if unknown:
            raise WorkloadSyntaxError(
                f"{here}: unknown key(s) {', '.join(unknown)}; a token range query has "
                f"{', '.join(QUERY_KEYS)}"
            )
        queries[str(name)] = TokenRangeQuerySpec(
            name=str(name),
            columns=_columns(body.get("columns"), columns, here),
            page_size=_page_size(body.get("page_size", DEFAULT_PAGE_SIZE), here),
        )
    return queries


def _columns(raw: Any, known: list[str], what: str) -> list[str]:
    if not isinstance(raw, str) or not raw.strip():
        raise WorkloadSyntaxError(
            f"{what}: columns: is missing; give the columns to read, e.g. columns: '*' "
            "(every column) or columns: name, value"
        )
    if raw.strip() == "*":
        return [cql_name(n) for n in known]
    names = [part.strip() for part in raw.split(",")]
    for name in names:
        plain = name[1:-1] if len(name) > 1 and name[0] == name[-1] == '"' else name.lower()
        if "(" not in name and plain not in known:
            raise WorkloadSyntaxError(
                f"{what}: columns: {name!r} is not a column of the table; its columns are "
                f"{', '.join(known)} (or write '*')"
            )
    return names


def _page_size(raw: Any, what: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= _INT_MAX:
        raise WorkloadSyntaxError(
            f"{what}: page_size: {raw!r} is not a row count; give a whole number from 1 to "
            f"{_INT_MAX}, e.g. page_size: {DEFAULT_PAGE_SIZE} (the default)"
        )
    return raw


# ---------------------------------------------------------------- the option group


def parse_tokenrange(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    """``-tokenrange [wrap] [split-factor=N]``; N is digits with an optional k/m/b, at most
    2^31-1; 0 and 1 leave the ranges whole (as in stress)."""
    allowed = {"wrap": "[wrap]", "split-factor=": "[split-factor=N]"}
    found = expect_options("-tokenrange", args, allowed)
    split = 1
    if "split-factor=" in found:
        token, value = found["split-factor="]
        match = _SPLIT.match(value.strip())
        count = int(match.group(1)) * _SUFFIX[match.group(2).lower()] if match else None
        if count is None or count > _INT_MAX:
            raise WorkloadSyntaxError(
                f"-tokenrange {token!r}: split-factor is how many pieces each token range is "
                f"cut into: digits with an optional k/m/b, at most {_INT_MAX}, e.g. "
                "split-factor=4"
            )
        split = max(count, 1)
    fields["token_range"] = StressTokenRange(wrap="wrap" in found, split_factor=split)


# ---------------------------------------------------------------- the engine operation


def token_range_operation(
    profile: StressProfile,
    query: TokenRangeQuerySpec,
    weight: float,
    consistency: Consistency,
) -> Operation:
    """The engine operation of a token range query; ``-tokenrange`` settings are applied
    by :func:`with_walk` (the spec's builder)."""
    token = f"token({', '.join(cql_name(k) for k in profile.partition_key)})"
    columns = ", ".join(query.columns)
    table = f"{cql_name(profile.keyspace)}.{cql_name(profile.table)}"
    cql = f"SELECT {token}, {columns} FROM {table} WHERE {token} > ? AND {token} <= ?"
    return Operation(
        name=query.name,
        kind=OpKind.TOKEN_RANGE,
        weight=weight,
        statements=[Statement(cql=cql)],
        consistency=consistency,
        token_range=TokenRangeScan(page_size=query.page_size),
    )


def with_walk(operations: list[Operation], walk: StressTokenRange) -> list[Operation]:
    """The operations with ``-tokenrange``'s wrap and split factor on each token range one."""
    return [
        op.model_copy(
            update={
                "token_range": op.token_range.model_copy(
                    update={"wrap": walk.wrap, "split_factor": walk.split_factor}
                )
            }
        )
        if op.token_range is not None
        else op
        for op in operations
    ]
