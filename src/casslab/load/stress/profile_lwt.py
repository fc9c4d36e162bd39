"""Lightweight transactions (LWT) in cassandra-stress user profiles. Pure: CQL text and a
:class:`~casslab.load.stress.profile.StressProfile` in, engine statements out.

cassandra-stress runs a query whose ``IF`` conditions carry bind markers (``UPDATE ... IF
body = ? AND url = ?``) by reading the row's current values of those columns first
(``SELECT body, url FROM t WHERE <partition key> = ? AND <clustering columns> = ?``) and
binding what it read into the conditions, so the condition holds unless another client
changed the row in between; such a query must be ``fields: samerow``. casslab does the
same (:func:`read_first`), for ``UPDATE`` and ``DELETE``. A condition without a marker
(``IF EXISTS``, ``IF NOT EXISTS``, ``IF body = NULL``) runs as written. Every conditional
operation runs with the command's ``serial-cl=`` (SERIAL unless given) and counts its
outcomes, ``[applied]`` true or false.

``insert: condition: IF ...`` (in Cassandra's ``cqlstress-lwt-example.yaml``) makes the
insert conditional: ``IF NOT EXISTS`` keeps the ``INSERT``; any other condition turns it
into ``UPDATE t SET <columns> WHERE <primary key> IF ...`` (an ``INSERT`` takes no other
condition). Its conditions take no bind marker.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from casslab.cql_text import cql_name
from casslab.errors import WorkloadSyntaxError

if TYPE_CHECKING:  # profile.py reads insert conditions with this module
    from casslab.load.stress.profile import StressProfile

_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")
_IF = re.compile(r"\bIF\b", re.I)
_CONDITION_VERBS = ("UPDATE", "DELETE", "INSERT")


def _blank_literals(cql: str) -> str:
    """``cql`` with the text of its string literals and quoted names blanked (same length,
    same offsets): an ``IF`` or ``?`` inside them is not CQL's."""
    return _QUOTED.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[0], cql)


def condition_at(cql: str) -> int | None:
    """Where the ``IF`` of an ``UPDATE``/``DELETE``/``INSERT``'s condition starts; None for
    a statement without one (or another kind of statement)."""
    verb = cql.lstrip().split(None, 1)[0].upper() if cql.strip() else ""
    if verb not in _CONDITION_VERBS:
        return None
    plain = _blank_literals(cql)
    anchor = re.search(r"\bVALUES\b" if verb == "INSERT" else r"\bWHERE\b", plain, re.I)
    if anchor is None:
        return None
    found = _IF.search(plain, anchor.end())
    return None if found is None else found.start()


def is_conditional(cql: str) -> bool:
    return condition_at(cql) is not None


def marker_offsets(cql: str) -> list[int]:
    """The offsets of the ``?`` bind markers outside string literals."""
    return [i for i, char in enumerate(_blank_literals(cql)) if char == "?"]


def read_first(
    profile: StressProfile, qualified_table: str, columns: list[str]
) -> tuple[str, list[str]]:
    """The ``SELECT`` of ``columns`` by the full primary key a read-first LWT runs, and
    the key columns it binds, in order."""
    keys = profile.partition_key + profile.clustering
    selected = ", ".join(cql_name(c) for c in columns)
    where = " AND ".join(f"{cql_name(k)} = ?" for k in keys)
    return f"SELECT {selected} FROM {qualified_table} WHERE {where}", keys


def check_read_first(name: str, fields: str, columns: list[str], source: str) -> None:
    """cassandra-stress's rules for a query with bound conditions, in casslab's words."""
    if fields != "samerow":
        raise WorkloadSyntaxError(
            f"user profile {source}: query {name!r} is a lightweight transaction whose IF "
            f"conditions are bound ({', '.join(columns)} = ?): casslab reads that row first "
            "and binds its values, which needs fields: samerow (cassandra-stress refuses "
            "multirow too). Set fields: samerow"
        )


def insert_condition(raw: str, what: str) -> str:
    """``insert: condition:`` checked: one ``IF ...`` clause without bind markers; ``what``
    names the insert (``user profile P: insert``)."""
    text = raw.strip().rstrip(";").strip()
    if not _IF.match(text):
        raise WorkloadSyntaxError(
            f"{what}.condition {raw!r} must start with IF (e.g. "
            "condition: IF body = NULL, IF NOT EXISTS or IF EXISTS)"
        )
    if marker_offsets(text):
        raise WorkloadSyntaxError(
            f"{what}.condition {raw!r} has a bind marker (?); an "
            "insert's condition takes literals (IF body = NULL, IF EXISTS, IF NOT EXISTS). "
            "For an update conditioned on the row's current values write a query with "
            "IF column = ? (casslab reads the row first, as cassandra-stress does)"
        )
    return text


def conditional_insert(
    profile: StressProfile, qualified_table: str, condition: str, *, source: str = ""
) -> tuple[str, list[str]]:
    """The insert statement with ``condition`` and the columns it binds, in order."""
    counters = [c.name for c in profile.columns if c.cql_type == "counter"]
    if counters:
        raise WorkloadSyntaxError(
            f"user profile {source}: insert condition {condition!r}: the table has counter "
            f"column(s) {', '.join(counters)}, and Cassandra runs no conditional update on a "
            "counter table. Remove condition: from insert"
        )
    if re.fullmatch(r"IF\s+NOT\s+EXISTS", condition, re.I):
        order = [c.name for c in profile.columns]
        names = ", ".join(cql_name(c) for c in order)
        marks = ", ".join("?" for _ in order)
        return f"INSERT INTO {qualified_table} ({names}) VALUES ({marks}) IF NOT EXISTS", order
    keys = profile.partition_key + profile.clustering
    values = [c.name for c in profile.columns if c.name not in keys]
    if not values:
        raise WorkloadSyntaxError(
            f"user profile {source}: insert condition {condition!r}: every column is in the "
            "primary key, so there is nothing to update under a condition; use condition: "
            "IF NOT EXISTS"
        )
    sets = ", ".join(f"{cql_name(c)} = ?" for c in values)
    where = " AND ".join(f"{cql_name(k)} = ?" for k in keys)
    return f"UPDATE {qualified_table} SET {sets} WHERE {where} {condition}", values + keys
