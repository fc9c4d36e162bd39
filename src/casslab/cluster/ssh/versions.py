"""An ssh cluster's nodes moved to another Cassandra one at a time (a rolling upgrade): the
new version's jars are deployed to a stopped node's host first (from this machine's cache,
checked by sha256 there, skipped when already there: :func:`~casslab.cluster.ssh.deploy.
deploy_distribution`), and the node starts next on them with its own data and settings. In
between the cluster runs two versions; once every node runs the new one, it is the
cluster's. Refused before anything stops: a host that runs its own Cassandra install
(``cassandra_home``: casslab never writes to it), a version a host's Java cannot run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.cluster import distribution
from casslab.cluster.ssh import deploy
from casslab.errors import ClusterError, ConfigError, SetupError
from casslab.host import jdk

if TYPE_CHECKING:
    from casslab.cluster.ssh.cluster import SshCluster


@dataclass(frozen=True)
class SshVersions:
    """The Cassandra each node of ``cluster`` runs on its host."""

    cluster: SshCluster

    def check_version(self, version: str) -> str:
        cluster = self.cluster
        own = [n.host.label for n in cluster.ssh_nodes if n.host.cassandra_home is not None]
        if own:
            raise ConfigError(
                f"upgrade cluster {cluster.name!r}: host {own[0]} runs its own Cassandra "
                "install (cassandra_home in the inventory), which casslab never replaces; "
                "upgrade it there, or remove cassandra_home so casslab deploys its jars"
            )
        for node in cluster.ssh_nodes:
            java = jdk.Jdk(
                java=Path(node.java),
                version=str(node.java_feature),
                feature=node.java_feature,
            )
            try:
                jdk.check_supported(java, version)
            except SetupError as error:
                raise ConfigError(f"host {node.host.label}: {error}") from None
        return distribution.resolve(version).version

    def set_version(self, number: int, version: str) -> None:
        cluster = self.cluster
        if cluster.node_alive(cluster.node(number)):
            raise ClusterError(f"node {number} of {cluster.name!r} still runs; stop it first")
        dist = distribution.resolve(version)
        deployed = deploy.deploy_distribution(cluster.remote(number), dist)
        cluster.set_node_distribution(number, dist.version, deployed.dist_dir)

    def finish(self, version: str) -> None:
        self.cluster.set_cluster_version(distribution.resolve(version))
