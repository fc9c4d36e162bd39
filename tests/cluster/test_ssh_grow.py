"""The ssh backend's add-node, its pure parts: the spare host a new node joins on (or the
refusal naming the fix), and the files of a node that joined later (its own token, it
bootstraps, it is no seed, and the others keep the tokens ``casslab up`` gave them)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from casslab.cluster.model import ClusterState, cluster_spec
from casslab.cluster.ssh import grow, nodes, render
from casslab.cluster.ssh.ssh_state import SshHosts, SshNode
from casslab.errors import ConfigError
from casslab.remote.inventory import Inventory, load_inventory
from inventory_files import write_inventory


def _inventory(tmp_path: Path, hosts: int) -> Inventory:
    return load_inventory(write_inventory(tmp_path / "lab", hosts=hosts))


def test_the_first_host_running_no_node_is_the_spare_one(tmp_path: Path) -> None:
    inventory = _inventory(tmp_path, 4)
    used = list(inventory.hosts[:2])
    assert grow.spare_hosts(inventory, used) == list(inventory.hosts[2:])
    assert grow.spare_host("c", inventory, used).address == "10.9.0.2"
    assert grow.spare_host("c", inventory, used[::-1]).address == "10.9.0.2"


def test_no_spare_host_is_refused_with_the_fix(tmp_path: Path) -> None:
    inventory = _inventory(tmp_path, 3)
    with pytest.raises(ConfigError) as refused:
        grow.spare_host("c", inventory, list(inventory.hosts))
    said = str(refused.value)
    assert f"each of the 3 hosts of its inventory {inventory.path} already runs" in said
    assert "list one more host under hosts: there" in said
    assert "create the cluster with --nodes 2 to keep one spare" in said


def test_a_datacenter_without_a_spare_host_is_refused(tmp_path: Path) -> None:
    inventory = _inventory(tmp_path, 3)
    with pytest.raises(ConfigError, match=r"no spare host .* is in it \(spare: root@10\.9\.0\.2"):
        grow.spare_host("c", inventory, list(inventory.hosts[:2]), "dc2")
    assert grow.spare_host("c", inventory, list(inventory.hosts[:2]), "dc1").address == "10.9.0.2"


def _state(inventory: Inventory, joined_token: int) -> ClusterState:
    hosts = inventory.hosts
    made = [nodes.node_on("c", k, h) for k, h in enumerate(hosts, start=1)]
    ssh_nodes = tuple(
        SshNode(
            number=k,
            host=h,
            java="/usr/bin/java",
            java_feature=17,
            dist_dir="/d",
            tokens=(joined_token,) if k == len(hosts) else (),
        )
        for k, h in enumerate(hosts, start=1)
    )
    return ClusterState(
        spec=cluster_spec(name="c", hosts=str(inventory.path), nodes=len(made)),
        cassandra_version="5.0.9",
        lib_dir=Path("/cache/lib"),
        java=Path("/usr/bin/java"),
        java_feature=17,
        heap="512M",
        directory=Path("/home/c"),
        nodes=made,
        settings={},
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        backend_state=SshHosts(inventory=inventory, nodes=ssh_nodes),
    )


def _yaml(files: dict[int, dict[str, str]], number: int) -> dict[str, object]:
    loaded = yaml.safe_load(files[number]["cassandra.yaml"])
    assert isinstance(loaded, dict)
    return loaded


def test_a_node_that_joined_keeps_its_token_and_bootstraps_and_the_others_theirs(
    tmp_path: Path,
) -> None:
    three = _inventory(tmp_path, 3)
    files = render.node_files(_state(three, 12345))
    two = load_inventory(write_inventory(tmp_path / "two", hosts=2))
    before = render.node_files(_state(two, 0).model_copy(update={"backend_state": None}))
    for number in (1, 2):  # the two nodes casslab up made: as before the join
        assert _yaml(files, number)["initial_token"] == _yaml(before, number)["initial_token"]
        assert _yaml(files, number)["auto_bootstrap"] is False
    joined = _yaml(files, 3)
    assert str(joined["initial_token"]) == "12345"
    assert joined["auto_bootstrap"] is True
    seeds = joined["seed_provider"][0]["parameters"][0]["seeds"]  # type: ignore[index]
    assert seeds == "10.9.0.0:7000"
