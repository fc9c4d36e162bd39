"""WAN links from --link: parsed, checked against what the emulator can do, and against
the topology's datacenters."""

from __future__ import annotations

import pytest

from casslab.errors import ConfigError
from casslab.net.links import Link, check_links, parse_link


def test_a_delay_alone() -> None:
    assert parse_link("dc2-dc1=20ms") == Link(sites=("dc1", "dc2"), delay_ms=20)


def test_every_setting() -> None:
    link = parse_link("dc1-dc3=35ms,jitter=2ms,loss=0.1%,rate=100mbit")
    assert link == Link(
        sites=("dc1", "dc3"), delay_ms=35, jitter_ms=2, loss_pct=0.1, rate_bps=100_000_000
    )
    assert parse_link("a-b=1ms,rate=512kbit").rate_bps == 512_000
    assert parse_link("a-b=1ms,rate=1.5Gbit").rate_bps == 1_500_000_000


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dc1=20ms", "expected SITE-SITE=DELAY"),
        ("dc1-dc2", "expected SITE-SITE=DELAY"),
        ("dc1-dc1=20ms", "two different datacenters"),
        ("dc1-dc2=20", "not a time like 20ms"),
        ("dc1-dc2=0.1ms", "whole milliseconds"),
        ("dc1-dc2=0ms", "at least 1ms"),
        ("dc1-dc2=20ms,jitter=30ms", "jitter 30ms is larger than the delay 20ms"),
        ("dc1-dc2=20ms,loss=150%", "not 0% to 100%"),
        ("dc1-dc2=20ms,loss=1", "not 0% to 100%"),
        ("dc1-dc2=20ms,rate=10MB", "not a rate like 100mbit"),
        ("dc1-dc2=20ms,rate=0mbit", "not a rate like 100mbit"),
        ("dc1-dc2=20ms,burst=1", "unknown setting 'burst'"),
        ("dc1-dc2=20ms,loss", "not key=value"),
    ],
)
def test_a_bad_link_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_link(text)


def test_links_join_datacenters_of_the_topology_once() -> None:
    links = [parse_link("dc1-dc2=20ms"), parse_link("dc1-dc3=35ms")]
    check_links(links, ["dc1", "dc2", "dc3"])
    with pytest.raises(ConfigError, match=r"datacenter\(s\) dc3 are not in the topology"):
        check_links(links, ["dc1", "dc2"])
    with pytest.raises(ConfigError, match="given twice"):
        check_links([*links, parse_link("dc2-dc1=80ms")], ["dc1", "dc2", "dc3"])
