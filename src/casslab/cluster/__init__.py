"""Cassandra clusters: obtain a distribution, render configuration, run nodes.

Callers bring clusters up with :func:`up`/:func:`create`, find them with :func:`attach`,
and use them through the :class:`Cluster` protocol; the backends (``local``, ``isolated``,
``external``, ``ssh``) are registered in :mod:`casslab.cluster.registry`.
:func:`attach_external` attaches a cluster casslab did not start. What a cluster's state
keeps of its backend is read with the backend's accessor (:func:`isolated_or_none`,
:func:`ssh_hosts_or_none`, :func:`external_or_none`, :func:`external_of`), never from
the state's field.
"""

from casslab.cluster.backend import Cluster, NodeView, ResetMode, UpOutcome
from casslab.cluster.external.attach import attach_external
from casslab.cluster.external.external_state import external_of, external_or_none
from casslab.cluster.isolated.isolated_spec import ISOLATION_FIELDS, IsolatedSpec, NodeIsolation
from casslab.cluster.isolated.isolated_state import Isolation, isolated_or_none
from casslab.cluster.local.cluster import LocalCluster
from casslab.cluster.model import (
    BackendKind,
    ClusterSpec,
    ClusterState,
    Node,
    NodeStatus,
    cluster_spec,
    parse_spec,
)
from casslab.cluster.registry import (
    attach,
    create,
    current_access,
    current_contact_points,
    current_name,
    remove,
    up,
)
from casslab.cluster.ssh.ssh_state import ssh_hosts_or_none
from casslab.paths import clusters_root


def warnings_for(spec: ClusterSpec) -> list[str]:
    """What ``up`` and ``plan`` warn of before a cluster of ``spec`` starts (nodes that
    together ask for more CPU or memory than this host has)."""
    if not isinstance(spec, IsolatedSpec):
        return []
    from casslab.cluster.isolated.cluster import warnings_for as isolated_warnings

    return isolated_warnings(spec)


def limit_problems(spec: ClusterSpec) -> list[tuple[str, str]]:
    """What the isolated backend would refuse in ``spec``'s node limits, found without
    starting anything (see :func:`casslab.cluster.isolated.checks.limit_problems`)."""
    if not isinstance(spec, IsolatedSpec):
        return []
    from casslab.cluster.isolated.checks import limit_problems as isolated_problems

    return isolated_problems(spec)


__all__ = [
    "ISOLATION_FIELDS",
    "BackendKind",
    "Cluster",
    "ClusterSpec",
    "ClusterState",
    "IsolatedSpec",
    "Isolation",
    "LocalCluster",
    "Node",
    "NodeIsolation",
    "NodeStatus",
    "NodeView",
    "ResetMode",
    "UpOutcome",
    "attach",
    "attach_external",
    "cluster_spec",
    "clusters_root",
    "create",
    "current_access",
    "current_contact_points",
    "current_name",
    "external_of",
    "external_or_none",
    "isolated_or_none",
    "limit_problems",
    "parse_spec",
    "remove",
    "ssh_hosts_or_none",
    "up",
    "warnings_for",
]
