"""A dead node of a local cluster replaced by a new one, as an operator replaces a failed
host: once the other nodes see the old node down, a fresh node on the cluster's next
address starts with ``-Dcassandra.replace_address_first_boot=<old address>``, takes the
old node's tokens and streams their data from the other replicas; the operation ends when
every node sees the new node UP/NORMAL and none lists the old one any more. The old node
leaves the cluster's record (its directory stays, with its logs); the new one has the next
number, address and JMX port, as ``add-node`` gives them, and on a cluster with datacenters
the old node's datacenter and rack.

Refused before anything stops: the cluster's last node (nothing to stream from), a user
keyspace at replication factor 1 (the old node held the only copy of its ranges), one
more heap past this machine's memory, and a cluster whose nodes cannot join a datacenter."""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from typing import TYPE_CHECKING

from casslab.cluster import node_config, state
from casslab.cluster.local import grow, launch
from casslab.cluster.wait import wait_for
from casslab.errors import ClusterError, ConfigError

if TYPE_CHECKING:
    from casslab.cluster.backend import Cluster
    from casslab.cluster.local.cluster import LocalCluster

REPLACE_FLAG = "-Dcassandra.replace_address_first_boot"
DOWN_LIMIT_S = 90.0  # the others' failure detector convicts a dead node within ~20 s
PEERS = "SELECT peer FROM system.peers"
TOKENS_OF = "SELECT tokens FROM system.peers WHERE peer = %s"


def replace_problem(number: int, nodes: int, factors: Mapping[str, int]) -> str | None:
    """Why node ``number`` of ``nodes`` cannot be replaced, given the user keyspaces'
    replication factors; None when it can (pure)."""
    if nodes <= 1:
        return (
            f"node {number} is the cluster's last node: a replacement streams the old "
            "node's data from the other replicas, and there are none"
        )
    alone = sorted(k for k, rf in factors.items() if rf <= 1)
    if alone:
        return (
            f"keyspace(s) {', '.join(alone)} at replication factor 1: node {number} holds "
            "the only copy of its ranges, which no replacement can stream; raise their "
            "replication factor (and repair) first"
        )
    return None


def check_replaceable(cluster: LocalCluster, number: int, factors: Mapping[str, int]) -> int:
    """The number the replacement of node ``number`` will have; a :class:`ConfigError`
    when it cannot be replaced (before anything stops)."""
    cluster.node(number)  # a ClusterError naming the nodes there are
    problem = replace_problem(number, len(cluster.state.nodes), factors)
    if problem is not None:
        raise ConfigError(f"replace of node {number} of cluster {cluster.name!r}: {problem}")
    old = cluster.node(number)
    grow.check_growable(cluster, old.datacenter)
    return grow.next_node(cluster, old.datacenter, rack=old.rack).number


_DOWN = re.compile(r"^D[NLJM]\s+(\d+\.\d+\.\d+\.\d+)", re.MULTILINE)


def seen_down(cluster: Cluster, address: str, observer: int) -> bool | None:
    """True once node ``observer``'s ``nodetool status`` shows ``address`` down; None
    before (for :func:`wait_for`), also while nodetool fails. Any backend's cluster."""
    try:
        status = cluster.nodetool(observer, "status", timeout_s=60)
    except ClusterError:
        return None
    return True if address in _DOWN.findall(status) else None


def old_gone(cluster: Cluster, address: str) -> bool | None:
    """True once no node of ``cluster`` lists ``address`` among its peers; None before."""
    for node in cluster.nodes:
        peers = {str(row.peer) for row in cluster.session(node=node.number).execute(PEERS)}
        if address in peers:
            return None
    return True


def replace(cluster: LocalCluster, number: int, timeout_s: float) -> int:
    """Replace node ``number``, whose JVM has stopped, by a new node; its number once every
    node sees it UP/NORMAL and none lists the old one."""
    old = cluster.node(number)
    if cluster.node_alive(old):
        raise ClusterError(f"node {number} of {cluster.name!r} still runs; stop it first")
    others = [n for n in cluster.state.nodes if n.number != number]
    if not others:
        raise ConfigError(f"node {number} is the last node of {cluster.name!r}")
    new = grow.next_node(cluster, old.datacenter, rack=old.rack)
    cluster._check_ports([new])
    tokens = [
        int(t)
        for row in cluster.session(node=others[0].number).execute(TOKENS_OF, [old.address])
        for t in row.tokens or ()
    ]
    if not tokens:
        raise ClusterError(f"node {others[0].number} lists no tokens of node {number}")
    wait_for(
        lambda: seen_down(cluster, old.address, others[0].number),
        what=f"node {others[0].number} to see node {number} ({old.address}) down",
        limit_s=DOWN_LIMIT_S,
        hint="see its logs/system.log",
        interval_s=1.0,
    )
    if new.directory.exists():  # a node of that number that left: its data is stale
        shutil.rmtree(new.directory)
    new.conf_dir.mkdir(parents=True)
    name = cluster.state.spec.name
    settings = node_config.node_settings(name, new, others, tokens, cluster.state.settings)
    settings["auto_bootstrap"] = True  # a replacement streams the old node's ranges
    (new.conf_dir / "cassandra.yaml").write_text(node_config.cassandra_yaml(settings))
    (new.conf_dir / "logback.xml").write_text(node_config.logback_xml())
    (new.conf_dir / "logback-tools.xml").write_text(node_config.tools_logback_xml())
    launch.write_place(new)
    before = cluster.state
    cluster.state = grow.resized(before, [*others, new])
    state.save(cluster.state)
    cluster.close_sessions()
    cluster._provision()  # what the new node runs in, while the others run
    pid, started = cluster._spawn(new, flags=[f"{REPLACE_FLAG}={old.address}"])
    recorded = new.model_copy(update={"pid": pid, "pid_start_time": started})
    cluster.state = cluster.state.model_copy(update={"nodes": [*others, recorded]})
    state.save(cluster.state)
    try:
        cluster.start(timeout_s=timeout_s)  # waits until every node sees every other UN
    except BaseException:  # it never joined: the cluster's record is as it was
        cluster.state = before
        state.save(before)
        raise
    wait_for(
        lambda: old_gone(cluster, old.address),
        what=f"every node of {cluster.name!r} to drop node {number} ({old.address})",
        limit_s=timeout_s,
        hint="see the nodes' logs/system.log",
        interval_s=1.0,
    )
    cluster._drop_node(number)
    return new.number
