"""Cassandra clusters: obtain a distribution, render configuration, run nodes."""

from casslab.cluster.local import (
    LocalCluster,
    NodeView,
    clusters_root,
    current_contact_points,
)
from casslab.cluster.model import ClusterSpec, ClusterState, Node, NodeStatus

__all__ = [
    "ClusterSpec",
    "ClusterState",
    "LocalCluster",
    "Node",
    "NodeStatus",
    "NodeView",
    "clusters_root",
    "current_contact_points",
]
