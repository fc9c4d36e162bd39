"""A new node joins a running local cluster: it bootstraps into the ring (streaming its
ranges from the others) at the token that halves the largest range, as the cluster's next
node (its number, address and JMX port follow the others', as ``casslab up`` lays them
out). Refused before anything starts when one more heap does not fit this machine's
memory, and on a cluster with datacenters."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from casslab.cluster import node_config, state
from casslab.cluster.model import Node
from casslab.cluster.tokens import MIN_TOKEN, RING
from casslab.errors import ClusterError, ConfigError

if TYPE_CHECKING:
    from casslab.cluster.local.cluster import LocalCluster

TOKENS = (
    "SELECT tokens FROM system.local",
    "SELECT tokens FROM system.peers_v2",
)


def split_token(tokens: Iterable[int]) -> int:
    """The token halfway along the largest range between ``tokens`` (the ring wraps);
    the new node takes half of that range from its owner (pure)."""
    ring = sorted(set(tokens))
    if not ring:
        raise ClusterError("the ring has no tokens to split")
    best_start, best_gap = ring[-1], ring[0] + RING - ring[-1]  # the range that wraps
    for start, end in itertools.pairwise(ring):
        if end - start > best_gap:
            best_start, best_gap = start, end - start
    middle = best_start + best_gap // 2
    return (middle - MIN_TOKEN) % RING + MIN_TOKEN


def ring_tokens(session: Any) -> list[int]:
    """Every node's tokens, as node the session speaks to sees them."""
    return [int(t) for query in TOKENS for row in session.execute(query) for t in row.tokens or ()]


def check_growable(cluster: LocalCluster) -> None:
    """A :class:`ConfigError` when a node cannot join ``cluster`` (before anything starts)."""
    from casslab.cluster.local.cluster import check_memory

    if any(n.datacenter is not None for n in cluster.state.nodes):
        raise ConfigError(
            f"cluster {cluster.name!r} has datacenters: casslab adds nodes only to a "
            "cluster without a topology"
        )
    check_memory(cluster.state.heap, 1)


def next_node(cluster: LocalCluster) -> Node:
    """The node the cluster would add: the next number, address and JMX port."""
    return cluster._new_node(max(n.number for n in cluster.state.nodes) + 1)


def add_node(cluster: LocalCluster, timeout_s: float) -> int:
    """Bootstrap the next node into ``cluster`` and wait until every node sees every other
    UP/NORMAL; its number."""
    check_growable(cluster)
    node = next_node(cluster)
    cluster._check_ports([node])
    # both tables of one node: a query each, routed apart, would see half the ring
    token = split_token(ring_tokens(cluster.session(node=cluster.state.nodes[0].number)))
    if node.directory.exists():  # a node of that number that left: its data is stale
        shutil.rmtree(node.directory)
    node.conf_dir.mkdir(parents=True)
    settings = node_config.node_settings(
        cluster.state.spec.name, node, cluster.state.nodes, [token], cluster.state.settings
    )
    settings["auto_bootstrap"] = True  # it streams its ranges from the others
    (node.conf_dir / "cassandra.yaml").write_text(node_config.cassandra_yaml(settings))
    (node.conf_dir / "logback.xml").write_text(node_config.logback_xml())
    (node.conf_dir / "logback-tools.xml").write_text(node_config.tools_logback_xml())
    before = cluster.state
    nodes = [*before.nodes, node]
    spec = before.spec.model_copy(update={"nodes": len(nodes)})
    cluster.state = before.model_copy(update={"nodes": nodes, "spec": spec})
    state.save(cluster.state)
    cluster.close_sessions()
    try:
        cluster.start(timeout_s=timeout_s)
    except BaseException:  # it never joined: the cluster's record is as it was
        cluster.state = before
        state.save(before)
        raise
    return node.number
