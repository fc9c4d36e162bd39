"""The keyspace's replication in an experiment file, one map or one per topology (pure).

``schema.replication`` is the CQL replication map, ``{class: SimpleStrategy,
replication_factor: 1}`` or ``{class: NetworkTopologyStrategy, dc1: 2, dc2: 1}``. When the
factor ``cluster.topology`` varies the datacenters, one map cannot name every level's
datacenters, so the replication may instead be a mapping from each topology's name (a
preset's, or an inline definition's ``name``) to its map::

    replication:
      one-site:  {class: NetworkTopologyStrategy, utah: 3}
      far-apart: {class: NetworkTopologyStrategy, utah: 1, wisconsin: 1, clemson: 1}

Each trial gets the map of its topology (:func:`replication_for`). What a map means for a
topology, replicas per datacenter, is :func:`replicas_per_dc`, Cassandra's rule: a
``NetworkTopologyStrategy`` ``replication_factor`` (Cassandra 4.0 and later) gives every
datacenter the map does not name that many replicas.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from casslab.cql_text import class_name_problem

SIMPLE = "SimpleStrategy"
LOCATOR_PACKAGE = "org.apache.cassandra.locator."
NETWORK = "NetworkTopologyStrategy"
EXAMPLE = "{class: NetworkTopologyStrategy, dc1: 3}"


def strategy_of(replication: Mapping[str, Any]) -> str:
    """``SimpleStrategy`` for ``org.apache.cassandra.locator.SimpleStrategy`` too."""
    return str(replication.get("class", "")).rsplit(".", 1)[-1]


def is_keyed(value: Mapping[str, Any]) -> bool:
    """True when ``value`` maps topology names to replication maps."""
    return (
        bool(value) and "class" not in value and all(isinstance(v, Mapping) for v in value.values())
    )


def one_replication(value: Mapping[str, Any]) -> dict[str, str | int]:
    """A replication map checked for its own shape; ValueError naming what is wrong."""
    strategy = value.get("class")
    if not isinstance(strategy, str):
        raise ValueError(
            f"expected 'class' ({SIMPLE} or {NETWORK}), e.g. {{class: {SIMPLE}, "
            f"replication_factor: 1}} or {EXAMPLE}; per topology, a mapping from each "
            "topology's name to such a map"
        )
    short = strategy.removeprefix(LOCATOR_PACKAGE)
    problem = class_name_problem(short)  # the version's classes: class_checks
    if problem is not None:
        raise ValueError(f"class {problem}")
    out: dict[str, str | int] = {}
    for key, option in value.items():
        if isinstance(option, bool) or not isinstance(option, str | int):
            raise ValueError(f"{key}: expected a string or an integer, got {option!r}")
        out[str(key)] = option
    if strategy.rsplit(".", 1)[-1] == SIMPLE:
        factor = value.get("replication_factor")
        if not isinstance(factor, int) or isinstance(factor, bool) or factor < 1:
            raise ValueError(f"{SIMPLE} needs replication_factor: an integer >= 1")
        extra = sorted(str(key) for key in value if key not in ("class", "replication_factor"))
        if extra:
            raise ValueError(
                f"{SIMPLE} takes only replication_factor, not {', '.join(map(repr, extra))} "
                f"(per-datacenter factors are {NETWORK}'s)"
            )
    return out


def checked_replication(value: Mapping[str, Any]) -> dict[str, Any]:
    """``schema.replication`` checked: one map, or one map per topology name."""
    if not is_keyed(value):
        return one_replication(value)
    out: dict[str, Any] = {}
    for name, one in value.items():
        try:
            out[str(name)] = one_replication(one)
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from error
    return out


def replication_for(replication: Mapping[str, Any], topology: str | None) -> dict[str, str | int]:
    """The map a trial on ``topology`` (its name; None: no topology) uses. A keyed
    replication without the name is KeyError (the loader reports it first)."""
    if is_keyed(replication):
        if topology is None:
            raise KeyError("the replication is given per topology, but there is no topology")
        return dict(replication[topology])
    return dict(replication)


def _count(value: str | int) -> int | None:
    if isinstance(value, int):
        return value
    return int(value) if value.strip().isdigit() else None


def replicas_per_dc(
    replication: Mapping[str, str | int], sites: Mapping[str, int]
) -> dict[str, int | None]:
    """Replicas each datacenter of ``sites`` (name -> nodes, in order) holds by Cassandra's
    rule for ``replication``; None where the value is not a count. SimpleStrategy places
    its replicas around the ring without regard to datacenters: the count is then the
    whole cluster's, under the first datacenter's name when there is only one."""
    if strategy_of(replication) == SIMPLE:
        factor = replication.get("replication_factor", 1)
        return {name: _count(factor) for name in list(sites)[:1]} if len(sites) == 1 else {}
    default = replication.get("replication_factor")
    out: dict[str, int | None] = {}
    for name in sites:
        given = replication.get(name, default)
        out[name] = 0 if given is None else _count(given)
    return out


def named_datacenters(replication: Mapping[str, str | int]) -> list[str]:
    """The datacenters a NetworkTopologyStrategy map names (its options but class and
    replication_factor)."""
    if strategy_of(replication) != NETWORK:
        return []
    return [k for k in replication if k not in ("class", "replication_factor")]
