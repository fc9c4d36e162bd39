"""Files of casslab's other kinds given where an experiment file is expected (``casslab
plan FILE``, ``casslab run FILE``): a tune file, told by its ``tune:`` section, and a
capacity problem, told by its top-level keys, are named with the command that takes them.
Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

CAPACITY_KEYS: Final = frozenset({"machines", "vm_types", "tenants", "throughput"})
"""The top-level keys of a capacity problem (:class:`casslab.capacity.problem.PlanProblem`)."""


def other_kind_problem(data: Mapping[Any, Any], source: str) -> str | None:
    """What to run instead when ``data`` (the file ``source``) is a tune file or a capacity
    problem; None when it is neither."""
    if "tune" in data:
        return (
            f"a tune file (it has a `tune:` section), not an experiment file; run "
            f"`casslab tune {source}` (`casslab tune {source} --dry-run` shows its plan)"
        )
    if len(CAPACITY_KEYS.intersection(k for k in data if isinstance(k, str))) >= 2:
        return (
            "a capacity problem (machines, vm_types, tenants, throughput), not an experiment "
            f"file; run `casslab capacity plan {source}`"
        )
    return None
