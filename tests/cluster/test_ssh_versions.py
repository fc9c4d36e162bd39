"""An ssh cluster's upgrade capability (pure parts): the refusals before anything stops (a
host that runs its own Cassandra install, a version a host's Java cannot run), and what the
cluster's record says of a node moved to new jars and of the cluster once all are; the
ring operations it cannot do refused in the backend's words. The upgrade itself runs for real in
tests/cluster/test_ssh_integration.py."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from casslab.cluster import distribution
from casslab.cluster.capabilities import ring_of, versions_of
from casslab.cluster.model import ClusterState, Node, cluster_spec
from casslab.cluster.ssh.cluster import SshCluster
from casslab.cluster.ssh.ssh_state import SshHosts, SshNode
from casslab.errors import ConfigError
from casslab.remote.inventory import HostSpec, Inventory


def _cluster(tmp_path: Path, *, own_install: bool = False, feature: int = 17) -> SshCluster:
    hosts = tuple(
        HostSpec(
            address=f"10.0.0.{10 + k}",
            user="root",
            key=Path("/k"),
            cassandra_home="/opt/cassandra" if own_install and k == 2 else None,
        )
        for k in (1, 2)
    )
    nodes = [
        Node(
            number=k,
            address=h.address,
            native_port=9042,
            storage_port=7000,
            jmx_port=7199,
            directory=Path(f"/srv/h{k}/clusters/c/node{k}"),
        )
        for k, h in enumerate(hosts, start=1)
    ]
    ssh = SshHosts(
        inventory=Inventory(path=tmp_path / "hosts.yaml", known_hosts=Path("/kh"), hosts=hosts),
        nodes=tuple(
            SshNode(
                number=k,
                host=h,
                java="/usr/bin/java",
                java_feature=feature,
                dist_dir="/var/lib/casslab/dist/5.0.8",
            )
            for k, h in enumerate(hosts, start=1)
        ),
    )
    state = ClusterState(
        spec=cluster_spec(name="c", hosts=str(tmp_path / "hosts.yaml"), nodes=2, version="5.0.8"),
        cassandra_version="5.0.8",
        lib_dir=Path("/cache/5.0.8/lib"),
        java=Path("/usr/bin/java"),
        java_feature=feature,
        heap="512M",
        directory=tmp_path / "c",
        nodes=nodes,
        settings={},
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        backend_state=ssh,
    )
    (tmp_path / "c").mkdir()
    return SshCluster(state)


def test_a_host_with_its_own_install_is_not_upgraded(tmp_path: Path) -> None:
    versions = versions_of(_cluster(tmp_path, own_install=True))
    with pytest.raises(ConfigError, match=r"host root@10.0.0.12:22 runs its own Cassandra install"):
        versions.check_version("5.0.9")


def test_a_version_a_hosts_java_cannot_run_is_refused(tmp_path: Path) -> None:
    versions = versions_of(_cluster(tmp_path, feature=21))
    with pytest.raises(ConfigError, match=r"host root@10.0.0.11:22: Cassandra 5.0.9 needs JDK"):
        versions.check_version("5.0.9")


def test_the_record_follows_each_node_then_the_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASSLAB_HOME", str(tmp_path / "home"))
    cluster = _cluster(tmp_path)
    cluster.set_node_distribution(2, "5.0.9", "/var/lib/casslab/dist/5.0.9")
    assert [n.dist_dir.rsplit("/", 1)[1] for n in cluster.ssh_nodes] == ["5.0.8", "5.0.9"]
    assert cluster.ssh_node(2).classpath == "/var/lib/casslab/dist/5.0.9/lib/*"
    assert [n.version for n in cluster.nodes] == [None, "5.0.9"]  # two versions run
    lib = Path("/cache/5.0.9/lib")
    dist = distribution.Distribution(
        version="5.0.9", lib_dir=lib, source="maven", main_jar=lib / "cassandra-all-5.0.9.jar"
    )
    cluster.set_cluster_version(dist)
    assert (cluster.state.cassandra_version, cluster.state.spec.version) == ("5.0.9", "5.0.9")
    assert [n.version for n in cluster.nodes] == [None, None]


def test_ring_operations_are_refused_in_the_backends_words(tmp_path: Path) -> None:
    ring = ring_of(_cluster(tmp_path))
    with pytest.raises(ConfigError, match=r"each of the 2 hosts of its inventory .* already"):
        ring.check_add()  # every host of the inventory runs a node: no spare one
    with pytest.raises(ConfigError, match=r"each of the 2 hosts of its inventory .* already"):
        ring.check_replace(2, {"keyspace1": 2})  # the replacement needs a spare host too
    alone = r"replace of node 2 of cluster 'c': keyspace\(s\) keyspace1 at replication factor 1"
    with pytest.raises(ConfigError, match=alone):
        ring.check_replace(2, {"keyspace1": 1})
    with pytest.raises(ConfigError, match=r"node 1 of 'c' is not its last node \(2\)"):
        ring.forget(1)  # before anything on a host is touched
