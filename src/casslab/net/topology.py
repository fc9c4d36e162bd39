"""A cluster's datacenters and racks: ``--topology dc1:2,dc2:2,dc3:1 [--racks 2]`` parsed,
each node placed in a site and a rack, and the ``cassandra-rackdc.properties`` that
``GossipingPropertyFileSnitch`` reads from each node's conf directory. Pure.

Nodes are numbered across the sites in the order given (``dc1:2,dc2:1``: nodes 1 and 2 in
dc1, node 3 in dc2); within a site they go round its racks (``r1``, ``r2``, ...), as an
operator spreads replicas over failure domains.
"""

from __future__ import annotations

import re

from pydantic import Field

from casslab.errors import ConfigError
from casslab.record import Record

SNITCH = "GossipingPropertyFileSnitch"
_SITE_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_]{0,31}):([1-9][0-9]*)$")
EXAMPLE = "--topology dc1:2,dc2:1"


class Site(Record):
    """One datacenter: its name as Cassandra reports it and its node count."""

    name: str
    nodes: int = Field(ge=1)


class Placement(Record):
    """Where one node runs."""

    number: int  # the node's number in the cluster, from 1
    datacenter: str
    rack: str


class Topology(Record):
    """The datacenters of a cluster, in order, and the racks per datacenter."""

    sites: tuple[Site, ...]
    racks: int = Field(default=1, ge=1)

    @property
    def nodes(self) -> int:
        return sum(site.nodes for site in self.sites)

    @property
    def text(self) -> str:
        """As given: ``dc1:2,dc2:1`` (and ``racks 2`` when more than one)."""
        sites = ",".join(f"{site.name}:{site.nodes}" for site in self.sites)
        return sites if self.racks == 1 else f"{sites} racks {self.racks}"

    def __str__(self) -> str:
        return self.text

    @property
    def datacenters(self) -> list[str]:
        return [site.name for site in self.sites]

    def placements(self) -> list[Placement]:
        """Every node's datacenter and rack, by node number."""
        out: list[Placement] = []
        for site in self.sites:
            for index in range(site.nodes):
                rack = f"r{index % self.racks + 1}"
                out.append(Placement(number=len(out) + 1, datacenter=site.name, rack=rack))
        return out


def parse_topology(text: str, racks: int = 1) -> Topology:
    """``dc1:2,dc2:2,dc3:1`` -> a :class:`Topology`; a :class:`ConfigError` naming the part
    that is wrong and an example otherwise."""
    if racks < 1:
        raise ConfigError(f"--racks {racks}: a datacenter has at least 1 rack, e.g. --racks 2")
    sites: list[Site] = []
    for part in text.split(","):
        match = _SITE_RE.match(part.strip())
        if match is None:
            raise ConfigError(
                f"--topology {text!r}: {part.strip()!r} is not NAME:NODES (a name of letters, "
                f"digits and '_', starting with a letter, and a node count of 1 or more), "
                f"e.g. {EXAMPLE}"
            )
        name = match.group(1)
        if name in (site.name for site in sites):
            raise ConfigError(f"--topology {text!r}: datacenter {name!r} is named twice")
        sites.append(Site(name=name, nodes=int(match.group(2))))
    return Topology(sites=tuple(sites), racks=racks)


def rackdc_properties(placement: Placement) -> str:
    """A node's ``cassandra-rackdc.properties``. ``prefer_local`` makes nodes of one
    datacenter talk over their local addresses, as Cassandra's own file suggests."""
    return f"dc={placement.datacenter}\nrack={placement.rack}\nprefer_local=true\n"
