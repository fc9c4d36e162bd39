"""A new node joins a running ssh cluster on a spare host of its inventory (a host listed
there that runs none of its nodes; the inventory file is read again, so a host added to it
since ``casslab up`` counts): its Java is checked and the cluster's Cassandra deployed there
first (:func:`~casslab.cluster.ssh.deploy.deploy_distribution`), then it bootstraps as the
cluster's next node at the token that halves the largest range of its datacenter's, and the
join ends once every node sees every other UP/NORMAL. Refused before anything starts: no
spare host (the fix: list one more host, or make the cluster with fewer ``--nodes`` than
hosts), no spare host in the datacenter asked for.

A decommissioned node (the last one: :meth:`SshRing.forget`) leaves the cluster's record and
its folder on its host is deleted, so that host is spare again for the next add-node. A dead
node is replaced (:meth:`SshRing.replace`) by a new one on a spare host of its datacenter,
started with Cassandra's replace address and the dead node's tokens; the dead node's host is
then spare and its folder there deleted, as a decommissioned node's."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.cluster import distribution
from casslab.cluster.capabilities import last_node_only
from casslab.cluster.heap import heap_problem
from casslab.cluster.local.grow import free_token, ring_tokens, split_token
from casslab.cluster.local.replace import (
    DOWN_LIMIT_S,
    TOKENS_OF,
    old_gone,
    replace_problem,
    seen_down,
)
from casslab.cluster.model import Node, heap_mib
from casslab.cluster.ssh import deploy, nodes
from casslab.cluster.ssh.ssh_state import SshNode
from casslab.cluster.wait import wait_for
from casslab.errors import CasslabError, ClusterError, ConfigError
from casslab.remote.inventory import HostSpec, Inventory, load_inventory

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from casslab.cluster.ssh.cluster import SshCluster
    from casslab.remote.ssh import RemoteHost


def _where(host: HostSpec) -> tuple[str, int]:
    return host.address, host.port


def spare_hosts(inventory: Inventory, used: Sequence[HostSpec]) -> list[HostSpec]:
    """The inventory's database hosts that run none of ``used``'s nodes, in its order (pure)."""
    taken = {_where(h) for h in used}
    return [h for h in inventory.hosts if _where(h) not in taken]


def spare_host(
    cluster_name: str,
    inventory: Inventory,
    used: Sequence[HostSpec],
    datacenter: str | None = None,
) -> HostSpec:
    """The host the next node joins on (in ``datacenter`` when given), or the refusal
    naming the fix (pure)."""
    spare = spare_hosts(inventory, used)
    if not spare:
        keep = len(used) - 1
        fewer = f" or create the cluster with --nodes {keep} to keep one spare" if keep > 1 else ""
        raise ConfigError(
            f"add a node to cluster {cluster_name!r}: each of the {len(used)} hosts of its "
            f"inventory {inventory.path} already runs one of its nodes, and an ssh cluster "
            f"runs one node per host; list one more host under hosts: there (casslab deploys "
            f"Cassandra to it first){fewer}"
        )
    if datacenter is None:
        return spare[0]
    chosen = [h for h in spare if h.dc == datacenter]
    if not chosen:
        have = ", ".join(sorted({f"{h.label} ({h.dc})" for h in spare}))
        raise ConfigError(
            f"add a node to cluster {cluster_name!r} in datacenter {datacenter!r}: no spare "
            f"host of its inventory {inventory.path} is in it (spare: {have}); give that "
            f"datacenter's host dc: {datacenter} there, or name the spare host's datacenter"
        )
    return chosen[0]


def _clear_folder(host_spec: HostSpec, inventory: Inventory, folder: str) -> None:
    """Delete a replaced node's folder on its host, spare now, as decommission does; a
    warning when the host does not answer (a failed host often does not)."""
    from casslab.remote.ssh import RemoteHost  # paramiko loads only when used

    try:
        host = RemoteHost.connect(host_spec, inventory)
    except CasslabError as error:
        log.warning("%s stays on %s: %s", folder, host_spec.label, error)
        return
    try:
        host.run(["rm", "-rf", "--", folder])
    except CasslabError as error:
        log.warning("%s stays on %s: %s", folder, host_spec.label, error)
    finally:
        host.close()


def current_inventory(cluster: SshCluster) -> Inventory:
    """The cluster's inventory file as it reads now (the one recorded when it is gone)."""
    recorded = cluster.inventory
    if not Path(recorded.path).is_file():
        return recorded
    return load_inventory(Path(recorded.path))


@dataclass(frozen=True)
class SshRing:
    """The nodes of ``cluster``, one per host of its inventory."""

    cluster: SshCluster

    def check_add(self, datacenter: str | None = None) -> int:
        cluster = self.cluster
        used = [n.host for n in cluster.ssh_nodes]
        spare_host(cluster.name, current_inventory(cluster), used, datacenter)
        return max(n.number for n in cluster.nodes) + 1

    def add(self, timeout_s: float, datacenter: str | None = None) -> int:
        cluster = self.cluster
        inventory = current_inventory(cluster)
        used = [n.host for n in cluster.ssh_nodes]
        host_spec = spare_host(cluster.name, inventory, used, datacenter)
        number = max(n.number for n in cluster.nodes) + 1
        host, node, bare = self._ready_node(number, host_spec, inventory)
        session = cluster.session(node=cluster.nodes[0].number)
        own = ring_tokens(session, node.datacenter)
        token = free_token(split_token(own), ring_tokens(session))
        ssh_node = bare.model_copy(update={"tokens": (token,), "joined": True})
        cluster.join(node, ssh_node, host, inventory, timeout_s)
        return number

    def _ready_node(
        self, number: int, host_spec: HostSpec, inventory: Inventory
    ) -> tuple[RemoteHost, Node, SshNode]:
        """Node ``number`` on a spare host, ready to start: a connection to the host with its
        Java checked, room for one more heap, the cluster's Cassandra deployed there and no
        folder left by an earlier node of that number; its record without tokens yet."""
        from casslab.remote.ssh import RemoteHost  # paramiko loads only when used

        cluster = self.cluster
        host = RemoteHost.connect(host_spec, inventory)
        try:
            java = deploy.find_java(host, cluster.state.cassandra_version)
            memory = deploy.available_memory_bytes(host)
            problem = heap_problem(heap_mib(cluster.state.heap), 1, memory, memory)
            if problem is not None:
                where = f"host {host_spec.label}"
                raise ConfigError(f"{problem.replace('this machine', where)} (nothing started)")
            dist = distribution.resolve(cluster.state.cassandra_version)
            deployed = deploy.deploy_distribution(host, dist)
        except BaseException:
            host.close()
            raise
        node = nodes.node_on(cluster.name, number, host_spec)
        host.run(["rm", "-rf", "--", str(node.directory)])  # a node of that number that left
        bare = SshNode(
            number=number,
            host=host_spec,
            java=str(java.java),
            java_feature=java.feature,
            dist_dir=deployed.dist_dir,
        )
        return host, node, bare

    def check_replace(self, number: int, factors: Mapping[str, int]) -> int:
        """The number node ``number``'s replacement will have; a :class:`ConfigError`
        before anything stops when it cannot be replaced: the last node, a keyspace at
        replication factor 1, no spare host in its datacenter."""
        cluster = self.cluster
        old = cluster.node(number)  # a ClusterError naming the nodes there are
        problem = replace_problem(number, len(cluster.nodes), factors)
        if problem is not None:
            raise ConfigError(f"replace of node {number} of cluster {cluster.name!r}: {problem}")
        used = [n.host for n in cluster.ssh_nodes]
        spare_host(cluster.name, current_inventory(cluster), used, old.datacenter)
        return max(n.number for n in cluster.nodes) + 1

    def replace(self, number: int, timeout_s: float) -> int:
        """Replace node ``number``, whose JVM has stopped, by a new node on a spare host of
        its datacenter: Cassandra deployed there, the node started with the dead node's
        address to replace and its tokens; its number once every node sees it UP/NORMAL and
        none lists the dead one. Its host is spare again, and its folder there is deleted
        when the host answers (a warning when it does not)."""
        cluster = self.cluster
        old = cluster.node(number)
        if cluster.node_alive(old):
            raise ClusterError(f"node {number} of {cluster.name!r} still runs; stop it first")
        others = [n for n in cluster.nodes if n.number != number]
        if not others:
            raise ConfigError(f"node {number} is the last node of {cluster.name!r}")
        session = cluster.session(node=others[0].number)
        tokens = tuple(
            int(t) for row in session.execute(TOKENS_OF, [old.address]) for t in row.tokens or ()
        )
        if not tokens:
            raise ClusterError(f"node {others[0].number} lists no tokens of node {number}")
        wait_for(
            lambda: seen_down(cluster, old.address, others[0].number),
            what=f"node {others[0].number} to see node {number} ({old.address}) down",
            limit_s=DOWN_LIMIT_S,
            hint="see its logs/system.log",
            interval_s=1.0,
        )
        inventory = current_inventory(cluster)
        used = [n.host for n in cluster.ssh_nodes]
        host_spec = spare_host(cluster.name, inventory, used, old.datacenter)
        new_number = max(n.number for n in cluster.nodes) + 1
        host, node, bare = self._ready_node(new_number, host_spec, inventory)
        ssh_node = bare.model_copy(
            update={"tokens": tokens, "joined": True, "replaces": old.address}
        )
        dead_host = cluster.ssh_node(number).host  # before the swap drops its record
        cluster.swap(number, node, ssh_node, host, inventory, timeout_s)
        _clear_folder(dead_host, inventory, str(old.directory.parent))
        wait_for(
            lambda: old_gone(cluster, old.address),
            what=f"every node of {cluster.name!r} to drop node {number} ({old.address})",
            limit_s=timeout_s,
            hint="see the nodes' logs/system.log",
            interval_s=1.0,
        )
        return new_number

    def check_forget(self, number: int) -> None:
        last_node_only(self.cluster.name, number, self.cluster.nodes)

    def forget(self, number: int) -> None:
        """Drop node ``number`` (decommissioned, stopped) from the cluster; its host is
        spare again. Only the last node, as on a local cluster."""
        self.check_forget(number)
        self.cluster.leave(number)
