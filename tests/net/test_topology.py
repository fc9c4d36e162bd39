"""Datacenters and racks from --topology, and each node's cassandra-rackdc.properties."""

from __future__ import annotations

import pytest

from casslab.errors import ConfigError
from casslab.net.topology import Placement, parse_topology, rackdc_properties


def test_nodes_are_numbered_across_the_sites_in_order() -> None:
    topology = parse_topology("dc1:2,dc2:2,dc3:1")
    assert topology.nodes == 5
    assert topology.datacenters == ["dc1", "dc2", "dc3"]
    assert [(p.number, p.datacenter, p.rack) for p in topology.placements()] == [
        (1, "dc1", "r1"),
        (2, "dc1", "r1"),
        (3, "dc2", "r1"),
        (4, "dc2", "r1"),
        (5, "dc3", "r1"),
    ]


def test_nodes_go_round_the_racks_of_their_site() -> None:
    racks = [(p.datacenter, p.rack) for p in parse_topology("dc1:3,dc2:2", racks=2).placements()]
    assert racks == [("dc1", "r1"), ("dc1", "r2"), ("dc1", "r1"), ("dc2", "r1"), ("dc2", "r2")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dc1", "'dc1' is not NAME:NODES"),
        ("dc1:0", "'dc1:0' is not NAME:NODES"),
        ("1dc:2", "starting with a letter"),
        ("dc1:2,dc1:1", "datacenter 'dc1' is named twice"),
        ("dc1:2,,dc2:1", "'' is not NAME:NODES"),
    ],
)
def test_a_bad_topology_names_the_part_and_an_example(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_topology(text)


def test_no_racks_is_refused() -> None:
    with pytest.raises(ConfigError, match="--racks 0"):
        parse_topology("dc1:1", racks=0)


def test_the_snitch_file_of_a_node() -> None:
    text = rackdc_properties(Placement(number=3, datacenter="dc2", rack="r2"))
    assert text == "dc=dc2\nrack=r2\nprefer_local=true\n"


def test_a_topology_recounts_its_sites_from_the_nodes_datacenters() -> None:
    topology = parse_topology("dc1:2,dc2:1", racks=2)
    grown = topology.recounted(["dc1", "dc1", "dc2", "dc2"])
    assert (grown.text, grown.datacenters) == ("dc1:2,dc2:2 racks 2", ["dc1", "dc2"])
    assert topology.recounted(["dc2", "dc1", "dc1"]) == topology  # the order of sites stays
    with pytest.raises(ConfigError, match=r"datacenter 'dc3': not one of dc1, dc2"):
        topology.recounted(["dc1", "dc2", "dc3"])
    with pytest.raises(ConfigError, match=r"datacenter dc2 would have no node left"):
        topology.recounted(["dc1", "dc1"])


def test_a_joining_node_goes_in_the_rack_with_the_fewest_nodes() -> None:
    topology = parse_topology("dc1:3", racks=3)
    assert topology.joining_rack([]) == "r1"
    assert topology.joining_rack(["r1", "r2"]) == "r3"
    assert topology.joining_rack(["r1", "r2", "r3"]) == "r1"  # a tie: the first
    assert topology.joining_rack(["r2", "r3", "r3", "r1", "r1"]) == "r2"
    assert parse_topology("dc1:1").joining_rack(["r1"]) == "r1"
