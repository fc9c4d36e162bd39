"""What an experiment may ask of an existing cluster it runs on (``cluster: {use: NAME}``),
checked on the file's raw data before anything starts (pure).

casslab only uses such a cluster: it does not set its nodes' count, version, heap,
cassandra.yaml, JVM options, isolation, topology or clocks, and never restarts, recreates
or wipes it. So those fields and the factors that vary them are refused, and so are the
resets other than ``truncate`` (of the trial's own keyspace only) and ``none`` (the default
there: the file must say ``reset: truncate`` for casslab to empty anything).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from casslab.cluster import ISOLATION_FIELDS
from casslab.experiment.file.experiment_model import FactorKind, parse_factor_name

USE_FIELD = "use"
FIXED_BY_THE_CLUSTER = (
    "nodes",
    "version",
    "node_versions",
    "heap",
    "config",
    "topology",
    "clock",
    "jvm_options",
    *ISOLATION_FIELDS,
)
"""The ``cluster:`` fields an existing cluster has already: a file that uses one gives none."""

_REFUSED_FACTORS = {
    FactorKind.CONFIG: "its cassandra.yaml",
    FactorKind.NODES: "its node count",
    FactorKind.CLUSTER: "its nodes",
    FactorKind.CLOCK: "its clocks",
}
_ALLOWED_RESETS = ("truncate", "none")


def existing_problems(data: Mapping[str, Any]) -> list[str]:
    """Problems of a file whose ``cluster.use`` names an existing cluster (none when it
    does not)."""
    cluster = data.get("cluster")
    if not isinstance(cluster, Mapping) or cluster.get(USE_FIELD) is None:
        return []
    name = cluster[USE_FIELD]
    problems = [
        f"cluster.{field}: cluster {name!r} is used as it is; casslab does not set its "
        f"{field} (remove it, or run on a cluster of casslab's own without cluster.use)"
        for field in FIXED_BY_THE_CLUSTER
        if field in cluster
    ]
    problems += [
        f"factors.{factor}: cluster {name!r} is used as it is; casslab does not change "
        f"{what} (vary the workload, threads, rate or table options instead)"
        for factor, what in refused_factors(data, _REFUSED_FACTORS)
    ]
    reset = data.get("reset")
    if reset is not None and str(reset) not in _ALLOWED_RESETS:
        problems.append(
            f"reset: {reset!r} on cluster {name!r}, which casslab did not start: it never "
            "drops, restarts or wipes it; write reset: truncate (the trial's keyspace "
            "only) or leave reset out (none: the preload writes over the data)"
        )
    return problems


def refused_factors(
    data: Mapping[str, Any], refused: Mapping[FactorKind, str]
) -> list[tuple[str, str]]:
    """The file's factors of a kind in ``refused``, each with what ``refused`` says it
    varies (factors whose name does not parse are the factor checks' to report)."""
    factors = data.get("factors")
    found: list[tuple[str, str]] = []
    for factor in factors if isinstance(factors, Mapping) else ():
        try:
            kind, _ = parse_factor_name(str(factor))
        except ValueError:
            continue
        if kind in refused:
            found.append((str(factor), refused[kind]))
    return found
