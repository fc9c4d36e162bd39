"""Cassandra clusters: obtain a distribution, render configuration, run nodes.

Callers bring clusters up with :func:`up`/:func:`create`, find them with :func:`attach`,
and use them through the :class:`Cluster` protocol; the backends (``local`` today) are
registered in :mod:`casslab.cluster.registry`.
"""

from casslab.cluster.backend import Cluster, NodeView, ResetMode, UpOutcome
from casslab.cluster.local import LocalCluster
from casslab.cluster.model import BackendKind, ClusterSpec, ClusterState, Node, NodeStatus
from casslab.cluster.registry import (
    attach,
    create,
    current_contact_points,
    current_name,
    remove,
    up,
)
from casslab.paths import clusters_root

__all__ = [
    "BackendKind",
    "Cluster",
    "ClusterSpec",
    "ClusterState",
    "LocalCluster",
    "Node",
    "NodeStatus",
    "NodeView",
    "ResetMode",
    "UpOutcome",
    "attach",
    "clusters_root",
    "create",
    "current_contact_points",
    "current_name",
    "remove",
    "up",
]
