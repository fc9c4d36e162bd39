"""A new node joins a running ssh cluster on a spare host of its inventory (a host listed
there that runs none of its nodes; the inventory file is read again, so a host added to it
since ``casslab up`` counts): its Java is checked and the cluster's Cassandra deployed there
first (:func:`~casslab.cluster.ssh.deploy.deploy_distribution`), then it bootstraps as the
cluster's next node at the token that halves the largest range of its datacenter's, and the
join ends once every node sees every other UP/NORMAL. Refused before anything starts: no
spare host (the fix: list one more host, or make the cluster with fewer ``--nodes`` than
hosts), no spare host in the datacenter asked for.

A decommissioned node (the last one: :meth:`SshRing.forget`) leaves the cluster's record and
its folder on its host is deleted, so that host is spare again for the next add-node.
Replacing a node stays the local and isolated backends'."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.cluster import distribution
from casslab.cluster.capabilities import last_node_only
from casslab.cluster.heap import heap_problem
from casslab.cluster.local.grow import free_token, ring_tokens, split_token
from casslab.cluster.model import heap_mib
from casslab.cluster.ssh import deploy, nodes
from casslab.cluster.ssh.ssh_state import SshNode
from casslab.errors import ConfigError
from casslab.remote.inventory import HostSpec, Inventory, load_inventory

if TYPE_CHECKING:
    from casslab.cluster.ssh.cluster import SshCluster

NO_LEAVING = (
    "runs on hosts over SSH: casslab adds a node there on a spare host of the inventory "
    "(add-node) and takes the last one away (decommission) but does not yet replace one; "
    "run replace on a local or isolated cluster"
)


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
        from casslab.remote.ssh import RemoteHost  # paramiko loads only when used

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
        session = cluster.session(node=cluster.nodes[0].number)
        own = ring_tokens(session, node.datacenter)
        token = free_token(split_token(own), ring_tokens(session))
        ssh_node = SshNode(
            number=number,
            host=host_spec,
            java=str(java.java),
            java_feature=java.feature,
            dist_dir=deployed.dist_dir,
            tokens=(token,),
        )
        host.run(["rm", "-rf", "--", str(node.directory)])  # a node of that number that left
        cluster.join(node, ssh_node, host, inventory, timeout_s)
        return number

    def check_replace(self, number: int, factors: Mapping[str, int]) -> int:
        raise ConfigError(f"cluster {self.cluster.name!r} {NO_LEAVING}")

    def replace(self, number: int, timeout_s: float) -> int:
        raise ConfigError(f"cluster {self.cluster.name!r} {NO_LEAVING}")

    def check_forget(self, number: int) -> None:
        last_node_only(self.cluster.name, number, self.cluster.nodes)

    def forget(self, number: int) -> None:
        """Drop node ``number`` (decommissioned, stopped) from the cluster; its host is
        spare again. Only the last node, as on a local cluster."""
        self.check_forget(number)
        self.cluster.leave(number)
