"""Node limits checked before anything starts, without asking the host: what an experiment
file's loader and ``casslab plan`` report for every cluster setup of a plan (pure)."""

from __future__ import annotations

from collections.abc import Callable

from casslab.cluster.cluster_spec import heap_mib
from casslab.cluster.isolated import sizes
from casslab.cluster.isolated.isolated_spec import IsolatedSpec
from casslab.errors import ConfigError
from casslab.host.cgroup_limits import NodeLimits
from casslab.host.cpus import parse_cpuset


def limits_of(spec: IsolatedSpec) -> NodeLimits:
    """The limits each node of ``spec`` gets."""
    return sizes.resolve_limits(
        spec.node_size,
        spec.cpus,
        spec.memory,
        spec.cpu_scale,
        spec.cpuset,
        spec.io_read,
        spec.io_write,
    )


def limit_problems(spec: IsolatedSpec) -> list[tuple[str, str]]:
    """What the isolated backend would refuse in ``spec``'s node limits, found without
    starting anything or asking the host: an unknown node size (the message lists the
    known ones), a memory or block-I/O size or a cpuset it cannot read, a heap that does
    not fit in the memory limit. One ``(field, message)`` each, the messages in ``casslab
    up``'s words (``--memory``). What this host cannot honour (more CPUs than it has, no
    root) is ``up``'s own check, and oversubscription :func:`warnings_for`'s."""

    def check_cpuset() -> None:
        if spec.cpuset is not None:
            parse_cpuset(spec.cpuset)

    checks: dict[str, Callable[[], object]] = {
        "node_size": lambda: sizes.resolve_limits(spec.node_size, None, None),
        "memory": lambda: sizes.resolve_limits(None, None, spec.memory),
        "cpuset": check_cpuset,
        "io_read": lambda: sizes.resolve_limits(None, None, None, io_read=spec.io_read),
        "io_write": lambda: sizes.resolve_limits(None, None, None, io_write=spec.io_write),
    }
    problems: list[tuple[str, str]] = []
    for field, check in checks.items():
        try:
            check()
        except ConfigError as error:
            problems.append((field, str(error)))
    if problems:
        return problems
    # the isolated backend's own rule at creation (IsolatedCluster._prepare), asked early
    if spec.heap is not None:
        limits = limits_of(spec)
        from_size = spec.node_size if spec.memory is None else None
        problem = sizes.heap_problem(heap_mib(spec.heap), spec.heap, limits.memory_mib, from_size)
        if problem is not None:
            problems.append(("heap", problem))
    return problems
