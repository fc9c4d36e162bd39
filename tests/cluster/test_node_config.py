from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from casslab.cluster.jvm import daemon_command, module_flags, nodetool_command
from casslab.cluster.model import Node, cluster_spec, heap_mib, parse_spec
from casslab.cluster.node_config import cassandra_yaml, node_settings


def _node(n: int) -> Node:
    return Node(
        number=n,
        address=f"127.0.0.{n}",
        native_port=9042,
        storage_port=7000,
        jmx_port=7190 + n,
        directory=Path(f"/c/node{n}"),
    )


def test_node_yaml_has_addresses_dirs_seeds_tokens_and_user_settings() -> None:
    nodes = [_node(1), _node(2), _node(3)]
    settings = node_settings("lab", nodes[1], nodes, [0], {"concurrent_compactors": 4})
    parsed = yaml.safe_load(cassandra_yaml(settings))
    assert parsed["listen_address"] == parsed["rpc_address"] == "127.0.0.2"
    assert parsed["data_file_directories"] == ["/c/node2/data"]
    assert parsed["commitlog_directory"] == "/c/node2/commitlog"
    seeds = parsed["seed_provider"][0]["parameters"][0]["seeds"]
    assert seeds == "127.0.0.1:7000,127.0.0.2:7000,127.0.0.3:7000"
    assert parsed["initial_token"] == "0"
    assert parsed["num_tokens"] == 1
    assert parsed["concurrent_compactors"] == 4
    assert parsed["auto_bootstrap"] is False
    assert parsed["cluster_name"] == "lab"


def test_user_cannot_override_addresses() -> None:
    node = _node(1)
    settings = node_settings("lab", node, [node], [0], {"listen_address": "10.0.0.1"})
    assert settings["listen_address"] == "127.0.0.1"


def test_daemon_command_for_jdk17() -> None:
    command = daemon_command(Path("/usr/bin/java"), 17, "/lib/*", _node(2), 512)
    assert command[0] == "/usr/bin/java"
    assert "-Xmx512M" in command
    assert "-Xms512M" in command
    assert "-Dcassandra.jmx.local.port=7192" in command
    assert "java.base/jdk.internal.misc=ALL-UNNAMED" in command
    assert command[-1] == "org.apache.cassandra.service.CassandraDaemon"
    assert "-Dcassandra.config=file:///c/node2/conf/cassandra.yaml" in command


def test_a_node_runs_with_the_options_cassandra_ships() -> None:
    command = daemon_command(Path("/usr/bin/java"), 17, "/lib/*", _node(2), 512)
    # conf/jvm-server.options and conf/jvm17-server.options of Cassandra 5.0
    for flag in (
        "-ea",
        "-XX:+AlwaysPreTouch",
        "-XX:+UseG1GC",
        "-XX:G1HeapRegionSize=16m",
        "-XX:MaxTenuringThreshold=1",
        "-XX:InitiatingHeapOccupancyPercent=70",
        "-Dio.netty.tryReflectionSetAccessible=true",
    ):
        assert flag in command, flag
    jvm_flags = [f for f in command if f.startswith(("-XX:", "-X", "-D"))]
    assert len(jvm_flags) == len(set(jvm_flags))  # no flag given twice
    gc_log = next(f for f in command if f.startswith("-Xlog:gc"))
    assert "/c/node2/logs/gc.log" in gc_log


def test_jdk8_gets_no_module_flags() -> None:
    assert module_flags(8) == []


def test_nodetool_command_targets_the_node_jmx_port() -> None:
    command = nodetool_command(Path("java"), 17, "/lib/*", _node(3), ["status"])
    assert command[-5:] == ["-h", "127.0.0.1", "-p", "7193", "status"]


@pytest.mark.parametrize(("text", "mib"), [("512M", 512), ("1G", 1024), ("2g", 2048)])
def test_heap_mib(text: str, mib: int) -> None:
    assert heap_mib(text) == mib


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"nodes": 0}, "greater than or equal to 1"),
        ({"name": "bad name!"}, "cluster name"),
        ({"heap": "128M"}, "at least 256M"),
        ({"heap": "lots"}, "expected a size"),
        ({"base_address": "10.0.0.1"}, "loopback"),
    ],
)
def test_cluster_spec_rejects(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_spec(kwargs)


def test_node_addresses_count_up_from_the_base() -> None:
    spec = cluster_spec(nodes=3, base_address="127.0.5.1")
    assert [spec.address(n) for n in (1, 2, 3)] == ["127.0.5.1", "127.0.5.2", "127.0.5.3"]


def test_a_node_in_a_datacenter_runs_the_gossiping_snitch_with_its_rackdc_file() -> None:
    node = _node(2).model_copy(update={"datacenter": "dc2", "rack": "r1"})
    settings = node_settings("c", node, [node], [0], {"endpoint_snitch": "SimpleSnitch"})
    assert settings["endpoint_snitch"] == "GossipingPropertyFileSnitch"
    command = daemon_command(Path("/usr/bin/java"), 17, "/lib/*", node, 512)
    assert "-Dcassandra-rackdc.properties=file:///c/node2/conf/cassandra-rackdc.properties" in (
        command
    )
    plain = daemon_command(Path("/usr/bin/java"), 17, "/lib/*", _node(1), 512)
    assert not any("rackdc" in part for part in plain)
    assert node_settings("c", _node(1), [], [0], {})["endpoint_snitch"] == "SimpleSnitch"


def test_a_topology_asks_for_netns_nodes_and_gives_their_count() -> None:
    from casslab.errors import ConfigError

    spec = cluster_spec(topology="dc1:2,dc2:1", links=["dc2-dc1=20ms"])
    assert (spec.nodes, spec.isolation.value, spec.backend.value) == (3, "netns", "isolated")
    assert spec.links[0].sites == ("dc1", "dc2")
    assert parse_spec(json.loads(spec.model_dump_json())) == spec
    with pytest.raises(ValueError, match="the topology has 2 nodes"):
        cluster_spec(topology="dc1:2", nodes=3)
    with pytest.raises(ValueError, match="need nodes in network namespaces"):
        cluster_spec(topology="dc1:2", isolation="process")
    with pytest.raises(ValueError, match="give a topology too"):
        cluster_spec(links=["dc1-dc2=20ms"])
    with pytest.raises(ConfigError, match=r"datacenter\(s\) dc9 are not in the topology"):
        cluster_spec(topology="dc1:1,dc2:1", links=["dc1-dc9=20ms"])
