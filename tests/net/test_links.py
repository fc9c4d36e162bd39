"""WAN links from --link: parsed, checked against what the emulator can do, and against
the topology's datacenters."""

from __future__ import annotations

import pytest

from casslab.errors import ConfigError
from casslab.net.links import Link, all_pairs, changed, check_links, link_text, parse_link


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
        ("dc1-dc2=-5ms", "not a time like 20ms"),
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


def test_every_site_pair_gets_a_link_and_a_pair_given_none_adds_no_delay() -> None:
    given = [parse_link("dc3-dc1=35ms,loss=1%")]
    pairs = all_pairs(given, ["dc1", "dc2", "dc3"])
    assert [p.sites for p in pairs] == [("dc1", "dc2"), ("dc1", "dc3"), ("dc2", "dc3")]
    assert pairs[1] == given[0]
    assert pairs[0].delay_ms == pairs[2].delay_ms == 0
    assert parse_link("dc1-dc2=0ms").delay_ms == 0


def test_a_link_is_written_as_it_was_asked() -> None:
    text = "dc1-dc3=35ms,jitter=2ms,loss=0.1%,rate=100mbit"
    assert link_text(parse_link(text)) == text
    assert link_text(parse_link("dc1-dc2=5ms,rate=1.5mbit")) == "dc1-dc2=5ms,rate=1500kbit"


def test_a_link_changed_at_run_time_keeps_what_is_not_named() -> None:
    link = parse_link("dc1-dc2=20ms,jitter=2ms,rate=100mbit")
    moved = changed(link, ["delay=80ms", "loss=0.5%"])
    assert (moved.delay_ms, moved.jitter_ms, moved.loss_pct) == (80, 2, 0.5)
    assert moved.rate_bps == 100_000_000
    assert changed(link, ["rate=none"]).rate_bps is None
    with pytest.raises(ConfigError, match="jitter 2ms is larger than the delay 1ms"):
        changed(link, ["delay=1ms"])
    with pytest.raises(ConfigError, match="unknown setting 'dealy'"):
        changed(link, ["dealy=5ms"])
