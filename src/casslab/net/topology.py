"""A cluster's datacenters and racks: ``--topology dc1:2,dc2:2,dc3:1 [--racks 2]`` parsed,
each node placed in a site and a rack, and the ``cassandra-rackdc.properties`` that
``GossipingPropertyFileSnitch`` reads from each node's conf directory. Pure.

Nodes are numbered across the sites in the order given (``dc1:2,dc2:1``: nodes 1 and 2 in
dc1, node 3 in dc2); within a site they go round its racks (``r1``, ``r2``, ...), as an
operator spreads replicas over failure domains.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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

    def recounted(self, datacenters: Sequence[str | None]) -> Topology:
        """The same sites, in order, each counting the nodes ``datacenters`` (one entry per
        node) place in it: the topology of a cluster after a node joined or left one of
        its datacenters (pure); a :class:`ConfigError` when a site would be left empty."""
        counts = {site.name: 0 for site in self.sites}
        for name in datacenters:
            if name not in counts:
                raise ConfigError(
                    f"a node in datacenter {name!r}: not one of {', '.join(counts)}; a node "
                    "joins one of the cluster's datacenters"
                )
            counts[name] += 1
        empty = [name for name, count in counts.items() if count == 0]
        if empty:
            raise ConfigError(
                f"datacenter {empty[0]} would have no node left; casslab keeps every "
                "datacenter of a cluster with at least one (recreate it without that site)"
            )
        sites = tuple(site.model_copy(update={"nodes": counts[site.name]}) for site in self.sites)
        return self.model_copy(update={"sites": sites})

    def joining_rack(self, racks: Sequence[str | None]) -> str:
        """The rack a node joining a datacenter goes in, given the racks of the nodes it
        already has: the one with the fewest of them (the first on a tie), as a node of
        ``up`` goes round the racks (pure)."""
        names = [f"r{index + 1}" for index in range(self.racks)]
        return min(names, key=lambda name: sum(1 for rack in racks if rack == name))

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
