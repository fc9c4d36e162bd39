"""Cassandra clusters: obtain a distribution, render configuration, run nodes.

Callers bring clusters up with :func:`up`/:func:`create`, find them with :func:`attach`,
and use them through the :class:`Cluster` protocol; the backends (``local`` today) are
registered in :mod:`casslab.cluster.registry`. The load engine's own cgroup on this host
(``--engine-cpus``) is :func:`engine_cgroup`.
"""

from collections.abc import Callable

from casslab.cluster.backend import Cluster, NodeView, ResetMode, UpOutcome
from casslab.cluster.isolated.engine_cgroup import check_engine_cpus, engine_cgroup
from casslab.cluster.isolated.records import Isolation
from casslab.cluster.local import LocalCluster
from casslab.cluster.model import (
    BackendKind,
    ClusterSpec,
    ClusterState,
    Node,
    NodeStatus,
    heap_mib,
)
from casslab.cluster.registry import (
    attach,
    create,
    current_contact_points,
    current_name,
    remove,
    up,
)
from casslab.paths import clusters_root


def warnings_for(spec: ClusterSpec) -> list[str]:
    """What ``up`` and ``plan`` warn of before a cluster of ``spec`` starts (nodes that
    together ask for more CPU or memory than this host has)."""
    if spec.backend is not BackendKind.ISOLATED:
        return []
    from casslab.cluster.isolated.cluster import warnings_for as isolated_warnings

    return isolated_warnings(spec)


def limit_problems(spec: ClusterSpec) -> list[tuple[str, str]]:
    """What the isolated backend would refuse in ``spec``'s node limits, found without
    starting anything or asking the host: an unknown node size (the message lists the
    known ones), a memory or block-I/O size or a cpuset it cannot read, a heap that does
    not fit in the memory limit. One ``(field, message)`` each, the messages in ``casslab
    up``'s words (``--memory``). What this host cannot honour (more CPUs than it has, no
    root) is ``up``'s own check, and oversubscription :func:`warnings_for`'s."""
    if spec.backend is not BackendKind.ISOLATED:
        return []
    from casslab.cluster.isolated import sizes
    from casslab.cluster.isolated.cluster import limits_of
    from casslab.errors import ConfigError

    def check_cpuset() -> None:
        if spec.cpuset is not None:
            sizes.parse_cpuset(spec.cpuset)

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


__all__ = [
    "BackendKind",
    "Cluster",
    "ClusterSpec",
    "ClusterState",
    "Isolation",
    "LocalCluster",
    "Node",
    "NodeStatus",
    "NodeView",
    "ResetMode",
    "UpOutcome",
    "attach",
    "check_engine_cpus",
    "clusters_root",
    "create",
    "current_contact_points",
    "current_name",
    "engine_cgroup",
    "limit_problems",
    "remove",
    "up",
    "warnings_for",
]
