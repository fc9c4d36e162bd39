"""Named topologies (seed 004's three) and a cluster.topology level resolved."""

from __future__ import annotations

import re
from typing import Any

import pytest

from casslab.errors import ConfigError
from casslab.net.links import check_links, parse_link
from casslab.net.presets import (
    PRESETS,
    TopologyChoice,
    link_text,
    resolve_topology,
)


def _delays(choice: TopologyChoice) -> dict[str, int]:
    return {"-".join(link.sites): link.delay_ms for link in choice.links}


def test_the_presets_are_seed_004s_three_topologies() -> None:
    shapes = {
        name: (p.topology.text, p.topology.nodes, p.topology.racks, len(p.links))
        for name, p in PRESETS.items()
    }
    assert shapes == {
        "one-host": ("dc1:4", 4, 1, 0),
        "one-site": ("utah:3", 3, 1, 0),
        "far-apart": ("utah:1,wisconsin:1,clemson:1", 3, 1, 3),
    }
    for preset in PRESETS.values():
        check_links(preset.links, preset.topology.datacenters)  # every link joins two sites
        assert preset.description
        assert preset.source


def test_one_site_says_the_lan_is_the_host_bridge() -> None:
    text = PRESETS["one-site"].description
    assert "kernel bridge" in text
    assert "0.05-0.08 ms" in text
    assert "cannot be emulated" in text


@pytest.mark.parametrize(
    ("pair", "rtt_ms", "one_way_ms"),
    [
        # (the two directions' P50 round trips the source gives, and the one-way delay)
        ("utah-wisconsin", (25, 26), 13),  # West Central US - North Central US
        ("clemson-utah", (43, 45), 22),  # West Central US - East US 2
        ("clemson-wisconsin", (22, 22), 11),  # North Central US - East US 2
    ],
)
def test_far_apart_delays_are_half_the_cited_round_trips(
    pair: str, rtt_ms: tuple[int, int], one_way_ms: int
) -> None:
    far = resolve_topology("far-apart")
    mean_rtt = sum(rtt_ms) / 2
    assert _delays(far)[pair] == one_way_ms == int(mean_rtt / 2 + 0.5)  # rounded half up
    source = PRESETS["far-apart"].source
    assert "https://learn.microsoft.com/en-us/azure/networking/azure-network-latency" in source
    assert all(re.search(rf"\b{value}\b", source) for value in rtt_ms)
    assert f"{one_way_ms} ms" in source


def test_a_preset_resolves_to_its_topology_and_links() -> None:
    choice = resolve_topology("far-apart")
    assert choice.name == "far-apart"
    assert choice.datacenters == ["utah", "wisconsin", "clemson"]
    assert choice.sites == {"utah": 1, "wisconsin": 1, "clemson": 1}
    assert choice.text == "far-apart (utah:1,wisconsin:1,clemson:1)"
    assert choice.links_text == "utah-wisconsin=13ms,clemson-utah=22ms,clemson-wisconsin=11ms"


@pytest.mark.parametrize(
    ("level", "name", "shape", "delays"),
    [
        ({"datacenters": "dc1:2,dc2:1"}, "dc1:2,dc2:1", "dc1:2,dc2:1", {}),
        (
            {"name": "two-dc", "datacenters": "dc1:2,dc2:1", "links": ["dc2-dc1=20ms"]},
            "two-dc",
            "dc1:2,dc2:1",
            {"dc1-dc2": 20},
        ),
        ({"datacenters": "a:2", "racks": 2}, "a:2 racks 2", "a:2 racks 2", {}),
    ],
)
def test_an_inline_level_resolves(
    level: dict[str, Any], name: str, shape: str, delays: dict[str, int]
) -> None:
    choice = resolve_topology(level)
    assert (choice.name, choice.topology.text, _delays(choice)) == (name, shape, delays)


@pytest.mark.parametrize(
    ("level", "message"),
    [
        ("far-away", r"'far-away': no such preset \(did you mean 'far-apart'\?\); the presets"),
        ("lan", r"one-host \(dc1:4\), one-site \(utah:3\), far-apart \("),
        (3, r"expected a preset's name \(one-host"),
        ({"datacenters": "dc1"}, r"datacenters 'dc1': 'dc1' is not NAME:NODES.*datacenters dc1:2"),
        ({"datacenters": "dc1:2", "links": ["dc1-dc9=5ms"]}, r"links dc1-dc9: datacenter\(s\) dc9"),
        ({"datacenters": "a:1,b:1", "links": ["a-b=-5ms"]}, r"'a-b=-5ms': delay '-5ms'"),
        ({"datacenters": "a:1,b:1", "links": ["a-b=0.5ms"]}, r"whole milliseconds"),
        ({"datacenters": "a:1", "sites": 3}, r"sites: Extra inputs are not permitted"),
        ({"links": []}, r"datacenters: Field required"),
        ({"name": "one-site", "datacenters": "utah:3"}, r"'one-site' is a preset's"),
        ({"name": "two dc", "datacenters": "a:1"}, r"topology name 'two dc': use letters"),
    ],
)
def test_a_bad_level_says_what_and_how_to_fix_it(level: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        resolve_topology(level)
    assert "--" not in str(caught.value)  # the file's words, not casslab up's options


@pytest.mark.parametrize(
    "text",
    ["dc1-dc2=20ms", "dc1-dc3=35ms,jitter=2ms,loss=0.1%,rate=100mbit", "a-b=1ms,loss=100%"],
)
def test_link_text_parses_back_to_the_same_link(text: str) -> None:
    link = parse_link(text)
    assert parse_link(link_text(link)) == link
