"""A new node joins a running local cluster: it bootstraps into the ring (streaming its
ranges from the others) at the token that halves the largest range, as the cluster's next
node (its number, address and JMX port follow the others', as ``casslab up`` lays them
out). On a cluster with datacenters (an isolated one with ``--topology``) it joins the
datacenter it is given, in the rack with the fewest of its nodes, and halves the largest
range of that datacenter's tokens. Refused before anything starts when one more heap does
not fit this machine's memory, when a datacenter is missing, unknown or not wanted, and on a
backend whose nodes cannot join a datacenter."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from casslab.cluster import node_config, state
from casslab.cluster.isolated.isolated_spec import IsolatedSpec, topology_of
from casslab.cluster.local import launch
from casslab.cluster.model import ClusterState, Node
from casslab.cluster.tokens import MIN_TOKEN, RING
from casslab.errors import ClusterError, ConfigError

if TYPE_CHECKING:
    from casslab.cluster.local.cluster import LocalCluster

TOKENS = (
    "SELECT data_center, tokens FROM system.local",
    "SELECT data_center, tokens FROM system.peers_v2",
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


def ring_tokens(session: Any, datacenter: str | None = None) -> list[int]:
    """Every node's tokens (those of ``datacenter``'s nodes when given), as the node the
    session speaks to sees them."""
    return [
        int(t)
        for query in TOKENS
        for row in session.execute(query)
        if datacenter is None or row.data_center == datacenter
        for t in row.tokens or ()
    ]


def free_token(token: int, taken: Iterable[int]) -> int:
    """``token``, or the next one up that no node holds (tokens are unique across the
    ring, also between datacenters) (pure)."""
    held = set(taken)
    while token in held:
        token = (token + 1 - MIN_TOKEN) % RING + MIN_TOKEN
    return token


def check_growable(cluster: LocalCluster, datacenter: str | None = None) -> None:
    """A :class:`ConfigError` when a node cannot join ``cluster`` (in ``datacenter``)
    before anything starts."""
    from casslab.cluster.local.cluster import check_memory

    topology = topology_of(cluster.state.spec)
    datacenter = joining_datacenter(cluster, datacenter)
    if topology is None and any(n.datacenter is not None for n in cluster.state.nodes):
        raise ConfigError(
            f"cluster {cluster.name!r} has datacenters but no topology: casslab adds nodes "
            "only to a cluster it made with --topology or without datacenters"
        )
    if topology is None and datacenter is not None:
        raise ConfigError(
            f"add a node in datacenter {datacenter!r}: cluster {cluster.name!r} has one "
            "datacenter (no --topology); leave datacenter out"
        )
    if topology is not None:
        names = topology.datacenters
        if datacenter not in names:
            given = "no datacenter" if datacenter is None else f"datacenter {datacenter!r}"
            raise ConfigError(
                f"add a node to cluster {cluster.name!r}: {given}; it has datacenters "
                f"{', '.join(names)}: say which one the node joins, e.g. datacenter: {names[0]}"
            )
        reason = cluster.datacenter_join_problem()
        if reason is not None:
            raise ConfigError(f"add a node to cluster {cluster.name!r}: {reason}")
    check_memory(cluster.state.heap, 1)


def joining_datacenter(cluster: LocalCluster, datacenter: str | None) -> str | None:
    """``datacenter``, or a topology's only one when none is given."""
    topology = topology_of(cluster.state.spec)
    if datacenter is None and topology is not None and len(topology.sites) == 1:
        return topology.sites[0].name
    return datacenter


def next_node(
    cluster: LocalCluster, datacenter: str | None = None, *, rack: str | None = None
) -> Node:
    """The node the cluster would add: the next number, address and JMX port (in
    ``datacenter``, in ``rack`` or else its rack with the fewest nodes)."""
    number = max(n.number for n in cluster.state.nodes) + 1
    topology = topology_of(cluster.state.spec)
    datacenter = joining_datacenter(cluster, datacenter)
    if datacenter is None or topology is None:
        return cluster._new_node(number)
    racks = [n.rack for n in cluster.state.nodes if n.datacenter == datacenter]
    return cluster._new_node(number, (datacenter, rack or topology.joining_rack(racks)))


def resized(before: ClusterState, nodes: list[Node]) -> ClusterState:
    """``before`` with ``nodes``: the spec's node count, and a topology's counts per
    datacenter, follow (a node joined or left)."""
    spec = before.spec.model_copy(update={"nodes": len(nodes)})
    if isinstance(spec, IsolatedSpec) and spec.topology is not None:
        topology = spec.topology.recounted([n.datacenter for n in nodes])
        spec = spec.model_copy(update={"topology": topology})
    return before.model_copy(update={"nodes": nodes, "spec": spec})


def add_node(cluster: LocalCluster, timeout_s: float, datacenter: str | None = None) -> int:
    """Bootstrap the next node into ``cluster`` (in ``datacenter``) and wait until every
    node sees every other UP/NORMAL; its number."""
    check_growable(cluster, datacenter)
    node = next_node(cluster, datacenter)
    cluster._check_ports([node])
    # both tables of one node: a query each, routed apart, would see half the ring
    session = cluster.session(node=cluster.state.nodes[0].number)
    own = ring_tokens(session, node.datacenter)
    token = free_token(split_token(own), ring_tokens(session))
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
    launch.write_place(node)
    before = cluster.state
    cluster.state = resized(before, [*before.nodes, node])
    state.save(cluster.state)
    cluster.close_sessions()
    try:
        cluster.start(timeout_s=timeout_s)
    except BaseException:  # it never joined: the cluster's record is as it was
        cluster.state = before
        state.save(before)
        raise
    return node.number
