"""A local cluster's nodes moved to another Cassandra one at a time (a rolling upgrade):
each stopped node starts next on the new version's jars with its own data; in between the
cluster runs two versions. Once every node runs it, the version is the cluster's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.cluster import distribution, state
from casslab.errors import ClusterError
from casslab.host import jdk

if TYPE_CHECKING:
    from casslab.cluster.local.cluster import LocalCluster


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
        dist = distribution.resolve(version)
        nodes = [
            n.model_copy(update={"version": None, "lib_dir": None})
            for n in self.cluster.state.nodes
        ]
        spec = self.cluster.state.spec.model_copy(update={"version": dist.version})
        self.cluster.state = self.cluster.state.model_copy(
            update={
                "nodes": nodes,
                "spec": spec,
                "cassandra_version": dist.version,
                "cassandra_source": dist.source,
                "lib_dir": dist.lib_dir,
            }
        )
        state.save(self.cluster.state)
