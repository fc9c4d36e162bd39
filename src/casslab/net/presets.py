"""Named topologies (seed 004's three), and the one rule that turns a level of the
experiment factor ``cluster.topology`` into datacenters, racks and links. Pure.

A level is a preset's name (``one-host``, ``one-site``, ``far-apart``) or an inline
definition, a mapping in the experiment file's words::

    {name: two-dc, datacenters: "dc1:2,dc2:1", racks: 1, links: ["dc1-dc2=20ms"]}

(``name`` is optional: without one the level is called by its datacenters,
``dc1:2,dc2:1``). Every value is checked by the rules of :mod:`casslab.net.topology` and
:mod:`casslab.net.links`; a mistake is a :class:`~casslab.errors.ConfigError` that names
the value and the fix, in the file's words.

Each preset says where its numbers come from. On one machine the nodes of a datacenter
talk over the host's kernel bridge, about 0.05-0.08 ms one way; the link emulator delays
in whole milliseconds, so a LAN's sub-millisecond delay cannot be emulated, only a WAN's
(``docs/design/wan-links.md``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationError

from casslab.errors import ConfigError
from casslab.net.links import Link, check_links, link_text, parse_link
from casslab.net.topology import Topology, parse_topology
from casslab.record import Record

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
INLINE_EXAMPLE = '{datacenters: "dc1:2,dc2:1", links: ["dc1-dc2=20ms"]}'


class Preset(Record):
    """A named topology: its datacenters (with racks), the links between them, and where
    its numbers come from."""

    name: str
    topology: Topology
    links: tuple[Link, ...] = ()
    description: str
    source: str  # the source of its numbers: title, address and the values taken


class InlineTopology(Record):
    """A topology defined in an experiment file (see the module docstring)."""

    name: str | None = None
    datacenters: str  # NAME:NODES,... as --topology takes it
    racks: int = Field(default=1, ge=1)
    links: tuple[str, ...] = ()  # SITE-SITE=DELAY[,jitter=..][,loss=..][,rate=..]


class TopologyChoice(Record):
    """A level of ``cluster.topology`` resolved: what the cluster is built with."""

    name: str  # the preset's name, the inline definition's name, or its datacenters
    topology: Topology
    links: tuple[Link, ...] = ()

    @property
    def datacenters(self) -> list[str]:
        return self.topology.datacenters

    @property
    def sites(self) -> dict[str, int]:
        """Nodes per datacenter, in order."""
        return {site.name: site.nodes for site in self.topology.sites}

    @property
    def links_text(self) -> str:
        """``clemson-utah=22ms,utah-wisconsin=13ms`` (empty without links)."""
        return ",".join(link_text(link) for link in self.links)

    @property
    def text(self) -> str:
        """``far-apart (utah:1,wisconsin:1,clemson:1)``, or the datacenters alone when the
        level is called by them."""
        shape = self.topology.text
        return shape if self.name == shape else f"{self.name} ({shape})"


def _links(*texts: str) -> tuple[Link, ...]:
    return tuple(parse_link(text) for text in texts)


_AZURE = (
    "Microsoft Learn, 'Azure network round-trip latency statistics', "
    "https://learn.microsoft.com/en-us/azure/networking/azure-network-latency (the page "
    "of 2023-07-21, MicrosoftDocs/azure-docs articles/networking/azure-network-latency.md): "
    "monthly P50 round-trip times between Azure regions"
)

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="one-host",
            topology=parse_topology("dc1:4"),
            description=(
                "Seed 004's topology 1: four Cassandra nodes in containers on one Docker "
                "host, one bridge, one datacenter, no links. Here: four nodes in their own "
                "network namespaces on one kernel bridge."
            ),
            source=(
                "seed 004 (four containers and an NTP container on one Docker host); there "
                "are no delays to take: the nodes talk over the host's bridge (~0.05-0.08 ms "
                "one way, measured in docs/design/wan-links.md)"
            ),
        ),
        Preset(
            name="one-site",
            topology=parse_topology("utah:3"),
            description=(
                "Seed 004's topology 2: three machines at one site (CloudLab Utah, a Docker "
                "Swarm overlay), one datacenter, LAN only. On one machine the LAN is the "
                "kernel bridge, ~0.05-0.08 ms one way; a real site LAN's sub-millisecond "
                "delay cannot be emulated (the link emulator delays in whole milliseconds), "
                "so this topology differs from one-host in the node count and the "
                "datacenter's name only."
            ),
            source=(
                "seed 004 (three bare-metal machines at CloudLab Utah); the LAN delay is the "
                "host bridge's, measured in docs/design/wan-links.md, not the site's"
            ),
        ),
        Preset(
            name="far-apart",
            topology=parse_topology("utah:1,wisconsin:1,clemson:1"),
            links=_links("utah-wisconsin=13ms", "clemson-utah=22ms", "clemson-wisconsin=11ms"),
            description=(
                "Seed 004's topology 3: one node at each of three CloudLab sites, Utah (Salt "
                "Lake City), Wisconsin (Madison) and Clemson (South Carolina), each site a "
                "datacenter, joined by emulated WAN links. One-way delays are half the "
                "round-trip times between the nearest Azure regions (no public "
                "measurement of the CloudLab sites' own paths was found, and the seed's "
                "round-trip figures were images, lost from its text): approximations, "
                "likely on the low side, as a cloud backbone is more direct than the "
                "research networks between universities."
            ),
            source=(
                f"{_AZURE}. Proxies: Utah = West Central US (Wyoming), Wisconsin = North "
                "Central US (Illinois), Clemson = East US 2 (Virginia). P50 RTT, both "
                "directions: West Central US - North Central US 25 and 26 ms (one way "
                "25.5 / 2 = 12.75 -> 13 ms); West Central US - East US 2 43 and 45 ms (44 / 2 "
                "= 22 ms); North Central US - East US 2 22 and 22 ms (11 ms). One way = the "
                "mean RTT / 2, rounded to whole ms (the emulator's resolution)."
            ),
        ),
    )
}


_CLI_WORDS = re.compile(r"--(topology|racks|link)\b")
_FILE_WORDS = {"topology": "datacenters", "racks": "racks", "link": "links"}


def _in_file_words(message: str) -> str:
    """A message of :mod:`casslab.net` (``--topology dc1``) in the file's words."""
    return _CLI_WORDS.sub(lambda match: _FILE_WORDS[match.group(1)], message)


def preset_list() -> str:
    """``one-host (dc1:4), one-site (utah:3), far-apart (...)``."""
    return ", ".join(f"{p.name} ({p.topology.text})" for p in PRESETS.values())


def _preset(name: str) -> TopologyChoice:
    preset = PRESETS.get(name)
    if preset is None:
        close = difflib.get_close_matches(name, list(PRESETS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"topology {name!r}: no such preset{hint}; the presets are {preset_list()}; or "
            f"define one inline, e.g. {INLINE_EXAMPLE}"
        )
    return TopologyChoice(name=preset.name, topology=preset.topology, links=preset.links)


def _inline(value: Mapping[str, Any]) -> TopologyChoice:
    try:
        inline = InlineTopology.model_validate(value)
    except ValidationError as error:
        found = [
            f"{'.'.join(str(p) for p in e['loc']) or 'topology'}: {e['msg']}"
            for e in error.errors()
        ]
        raise ConfigError(
            f"topology {dict(value)!r}: {'; '.join(found)}; an inline topology is "
            f"{INLINE_EXAMPLE} (name and racks optional)"
        ) from error
    if inline.name is not None:
        if not _NAME_RE.match(inline.name):
            raise ConfigError(
                f"topology name {inline.name!r}: use letters, digits, '.', '_' or '-' (max 64)"
            )
        if inline.name in PRESETS:
            raise ConfigError(
                f"topology name {inline.name!r} is a preset's; call the inline topology "
                "something else, or name the preset alone"
            )
    try:
        topology = parse_topology(inline.datacenters, racks=inline.racks)
        links = tuple(parse_link(text) for text in inline.links)
        check_links(links, topology.datacenters)
    except ConfigError as error:
        raise ConfigError(_in_file_words(str(error))) from error
    return TopologyChoice(name=inline.name or topology.text, topology=topology, links=links)


def resolve_topology(value: object) -> TopologyChoice:
    """A level of ``cluster.topology`` (a preset's name or an inline mapping) as the
    topology and links a cluster is built with; :class:`ConfigError` otherwise."""
    if isinstance(value, str):
        return _preset(value)
    if isinstance(value, Mapping):
        return _inline(value)
    raise ConfigError(
        f"topology {value!r}: expected a preset's name ({preset_list()}) or an inline "
        f"definition, e.g. {INLINE_EXAMPLE}"
    )
