"""A local cluster's nodes moved to another Cassandra one at a time (a rolling upgrade):
each stopped node starts next on the new version's jars with its own data; in between the
cluster runs two versions. Once every node runs it, the version is the cluster's. A new
cluster's nodes on another version from the start (``casslab up --node-version``) get
their installed jars the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.cluster import distribution, node_versions, state
from casslab.cluster.model import ClusterSpec
from casslab.errors import ClusterError, ConfigError
from casslab.host import jdk

if TYPE_CHECKING:
    from casslab.cluster.local.cluster import LocalCluster


def installed(version: str) -> distribution.Distribution | None:
    """``version``'s jars when they are here already (the cache, or CASSANDRA_HOME)."""
    return distribution.home_for(version) or distribution.cached(version)


def node_distributions(
    spec: ClusterSpec, cluster_version: str, java: jdk.Jdk
) -> dict[int, distribution.Distribution]:
    """The jars of each node ``spec.node_versions`` puts on another version than
    ``cluster_version``; a :class:`ConfigError` (before anything starts) for a mix
    Cassandra does not support, a version this JDK cannot run or one not installed."""
    asked = node_versions.differing(spec.node_versions, cluster_version)
    found = node_versions.problems(asked, spec.nodes, cluster_version)
    if found:
        raise ConfigError(f"cluster {spec.name!r}: {'; '.join(found)} (nothing was started)")
    out: dict[int, distribution.Distribution] = {}
    for number, version in asked.items():
        jdk.check_supported(java, version)
        dist = installed(version)
        if dist is None:
            raise ConfigError(
                f"--node-version {number}={version}: Cassandra {version} is not installed; "
                f"`casslab fetch --version {version}` downloads it (nothing was started)"
            )
        out[number] = dist
    return out


@dataclass(frozen=True)
class LocalVersions:
    cluster: LocalCluster

    def check_version(self, version: str) -> str:
        jdk.check_supported(jdk.probe(self.cluster.state.java), version)  # before a fetch
        return distribution.resolve(version).version

    def set_version(self, number: int, version: str) -> None:
        from casslab.cluster.local.node_capabilities import LocalProcesses

        if LocalProcesses(self.cluster).running(number):
            raise ClusterError(f"node {number} of {self.cluster.name!r} still runs; stop it first")
        dist = distribution.resolve(version)
        nodes = [
            n.model_copy(update={"version": dist.version, "lib_dir": dist.lib_dir})
            if n.number == number
            else n
            for n in self.cluster.state.nodes
        ]
        self.cluster.state = self.cluster.state.model_copy(update={"nodes": nodes})
        state.save(self.cluster.state)

    def finish(self, version: str) -> None:
        self.cluster.state = node_versions.all_on(self.cluster.state, distribution.resolve(version))
        state.save(self.cluster.state)
