"""The ssh backend's pure parts: each node's files from the shared rendering, and the
distribution package (sums and tar stream) deploy sends."""

from __future__ import annotations

import io
import tarfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from casslab.cluster.model import ClusterState, Node, cluster_spec
from casslab.cluster.ssh import nodes, render
from casslab.cluster.ssh.deploy import dist_dir, package
from casslab.cluster.ssh.ssh_state import SshHosts, SshNode
from casslab.remote.inventory import HostSpec, Inventory


def _state(dcs: list[str]) -> ClusterState:
    nodes = [
        Node(
            number=k,
            address=f"10.0.0.{10 + k}",
            native_port=9042,
            storage_port=7000,
            jmx_port=7199,
            directory=Path(f"/srv/h{k}/clusters/c/node{k}"),
            datacenter=dc,
            rack="r1",
        )
        for k, dc in enumerate(dcs, start=1)
    ]
    return ClusterState(
        spec=cluster_spec(name="c", hosts="/x/hosts.yaml", nodes=len(nodes)),
        cassandra_version="5.0.9",
        lib_dir=Path("/cache/lib"),
        java=Path("/usr/bin/java"),
        java_feature=17,
        heap="512M",
        directory=Path("/home/c"),
        nodes=nodes,
        settings={"concurrent_writes": 16},
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_each_node_listens_on_its_host_with_the_first_host_of_each_dc_as_seed() -> None:
    files = render.node_files(_state(["dc1", "dc1", "dc2"]))
    assert sorted(files) == [1, 2, 3]
    third = yaml.safe_load(files[3]["cassandra.yaml"])
    assert third["listen_address"] == third["rpc_address"] == "10.0.0.13"
    seeds = third["seed_provider"][0]["parameters"][0]["seeds"]
    assert seeds == "10.0.0.11:7000,10.0.0.13:7000"
    assert third["endpoint_snitch"] == "GossipingPropertyFileSnitch"
    assert third["concurrent_writes"] == 16
    assert third["data_file_directories"] == ["/srv/h3/clusters/c/node3/data"]
    assert files[3]["cassandra-rackdc.properties"].startswith("dc=dc2\nrack=r1\n")
    tokens = {yaml.safe_load(files[k]["cassandra.yaml"])["initial_token"] for k in files}
    assert len(tokens) == 3


def _ssh_node(number: int, **fields: object) -> SshNode:
    host = HostSpec(
        address=f"10.0.0.{10 + number}", user="root", key=Path("/k"), base_dir=f"/srv/h{number}"
    )
    return SshNode.model_validate(
        {"number": number, "host": host, "java": "/usr/bin/java", "java_feature": 17}
        | {"dist_dir": "/srv/dist/5.0.9", **fields}
    )


def _first_token(files: dict[int, dict[str, str]], number: int) -> str:
    return str(yaml.safe_load(files[number]["cassandra.yaml"])["initial_token"])


def test_a_replacement_takes_the_dead_nodes_tokens_and_the_others_keep_theirs() -> None:
    """Node 1 of three replaced by node 4: the survivors' tokens are recorded as they ran,
    not derived again from two nodes (that would give node 2 node 1's old token, the one
    node 4 now holds); node 2 becomes the seed, node 4 bootstraps."""
    made = _state(["dc1", "dc1", "dc1"])
    before = render.node_files(made)
    token = {k: _first_token(before, k) for k in (1, 2, 3)}
    ran = render.node_tokens(made)
    fourth = Node(
        number=4,
        address="10.0.0.14",
        native_port=9042,
        storage_port=7000,
        jmx_port=7199,
        directory=Path("/srv/h4/clusters/c/node4"),
        datacenter="dc1",
        rack="r1",
    )
    ssh = SshHosts(
        inventory=Inventory(path=Path("/x/hosts.yaml"), known_hosts=Path("/x/kh"), hosts=()),
        nodes=(
            _ssh_node(2, tokens=tuple(ran[2]), joined=False),
            _ssh_node(3, tokens=tuple(ran[3]), joined=False),
            _ssh_node(4, tokens=tuple(ran[1]), joined=True, replaces="10.0.0.11"),
        ),
    )
    after = made.model_copy(update={"nodes": [*made.nodes[1:], fourth], "backend_state": ssh})
    files = render.node_files(after)
    assert {k: _first_token(files, k) for k in (2, 3, 4)} == {
        2: token[2],
        3: token[3],
        4: token[1],
    }
    fourth_yaml = yaml.safe_load(files[4]["cassandra.yaml"])
    assert fourth_yaml["auto_bootstrap"] is True
    assert fourth_yaml["seed_provider"][0]["parameters"][0]["seeds"] == "10.0.0.12:7000"
    assert yaml.safe_load(files[2]["cassandra.yaml"])["auto_bootstrap"] is False
    assert nodes.replace_flags(ssh.nodes[2]) == ["-Dcassandra.replace_address_first_boot=10.0.0.11"]
    assert nodes.replace_flags(ssh.nodes[0]) == []


def test_a_node_recorded_before_joined_existed_joined_when_it_has_tokens() -> None:
    assert _ssh_node(3, tokens=(42,)).joined
    assert not _ssh_node(1).joined
    assert not _ssh_node(2, tokens=(7,), joined=False).joined


def test_the_hosts_spec_chooses_the_ssh_backend() -> None:
    assert cluster_spec(hosts="h.yaml").backend.value == "ssh"
    with pytest.raises(ValueError, match="not for nodes on hosts of an inventory"):
        cluster_spec(hosts="h.yaml", cpus=1)


def test_the_package_lists_every_jar_with_its_digest(tmp_path: Path) -> None:
    (tmp_path / "a.jar").write_bytes(b"alpha")
    (tmp_path / "b.jar").write_bytes(b"beta")
    pack = package(tmp_path)
    assert pack.sums.decode() == (
        "8ed3f6ad685b959ead7022518e1af76cd816f8e8ec7ccdda1ed4018e8f2223f8  lib/a.jar\n"
        "f44e64e75f3948e9f73f8dfa94721c4ce8cbb4f265c4790c702b2d41cfbf2753  lib/b.jar\n"
    )
    with tarfile.open(fileobj=io.BytesIO(pack.tar)) as tar:
        assert tar.getnames() == ["lib/a.jar", "lib/b.jar"]
        member = tar.extractfile("lib/b.jar")
        assert member is not None
        assert member.read() == b"beta"
    assert dist_dir("/var/lib/casslab/", "5.0.9") == "/var/lib/casslab/dist/5.0.9"
