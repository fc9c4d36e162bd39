"""The isolated backend's own fields of a cluster spec: how each node is isolated and
limited (:class:`NodeIsolation`), and the network of nodes in their own namespaces
(:class:`NodeNetwork`: a subnet, datacenters and racks, the emulated links between them).

:class:`IsolatedSpec` is the backend's variant of a cluster spec: them, the common fields
and its ``backend`` tag, one of :data:`casslab.cluster.model.ClusterSpec`'s union; an
experiment's ``cluster:`` section takes :class:`NodeIsolation` as it
is. Any limit asks for the isolated backend (:data:`LIMIT_FIELDS`). Pure.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from casslab.cluster.cluster_spec import BackendKind, CommonSpec
from casslab.cluster.isolated.isolated_state import Isolation
from casslab.net.links import Link, check_links, parse_link
from casslab.net.topology import Topology, parse_topology
from casslab.record import Record


class NodeIsolation(Record):
    """How each node is isolated and limited. The defaults are a plain process on
    127.0.0.n; anything else runs the nodes on the isolated backend."""

    isolation: Isolation = Isolation.PROCESS  # netns: its own network namespace and address
    node_size: str | None = None  # a VM-size profile, e.g. t2.small (1 vCPU, 2 GiB)
    cpus: float | None = Field(default=None, gt=0)  # CPU quota per node, in cores
    memory: str | None = None  # memory limit per node, e.g. 2GiB
    cpu_scale: float = Field(default=1.0, gt=0, le=64)  # times every CPU limit
    cpuset: str | None = None  # host CPUs the nodes may run on, e.g. 0-1
    io_read: str | None = None  # block-I/O read limit per node and second, e.g. 50MiB
    io_write: str | None = None  # block-I/O write limit per node and second

    @property
    def plain(self) -> bool:
        """True when the nodes are plain processes without limits (the defaults)."""
        default = NodeIsolation()
        return all(getattr(self, n) == getattr(default, n) for n in NodeIsolation.model_fields)


ISOLATION_FIELDS: tuple[str, ...] = tuple(NodeIsolation.model_fields)
"""The nodes' isolation and limits, the one list of them (a spec's, a trial's setup's, an
experiment's ``cluster:`` section's)."""

LIMIT_FIELDS: tuple[str, ...] = tuple(
    name for name, info in NodeIsolation.model_fields.items() if info.default is None
)
"""The limits: any of them given asks for the isolated backend."""

MOOT_FIELDS: tuple[str, ...] = ("cpu_scale",)
"""Fields that mean nothing without a limit (a scale of no limit limits nothing): a spec of
another backend leaves them out whatever they hold, as an experiment's cells without limits
give them."""


class NodeNetwork(Record):
    """The network of nodes in their own namespaces: their subnet, and with a topology the
    datacenters and racks and the emulated WAN links between datacenters."""

    subnet: str | None = None  # netns nodes' subnet, e.g. 10.213.4.0/24 (default: a free one)
    topology: Topology | None = None  # also "dc1:2,dc2:1" (racks: 1)
    links: tuple[Link, ...] = ()  # also "dc1-dc2=20ms,jitter=2ms" strings

    @field_validator("topology", mode="before")
    @classmethod
    def _topology(cls, value: Any) -> Any:
        return parse_topology(value) if isinstance(value, str) else value

    @field_validator("links", mode="before")
    @classmethod
    def _links(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list | tuple):
            return tuple(parse_link(v) if isinstance(v, str) else v for v in value)
        return value

    @field_validator("subnet")
    @classmethod
    def _subnet(cls, value: str | None) -> str | None:
        if value is None:
            return value
        network = ipaddress.ip_network(value, strict=False)
        if not network.is_private or network.version != 4 or network.prefixlen > 28:
            raise ValueError(
                f"subnet {value!r}: give a private IPv4 subnet of at least 16 addresses, "
                "e.g. 10.213.4.0/24"
            )
        return str(network)


def with_topology(data: dict[str, Any]) -> dict[str, Any]:
    """A topology asks for netns nodes (its links join the datacenters' bridges) and gives
    the node count when none is given (``choose_backend`` refuses it with another
    isolation)."""
    if data.get("topology") is None:
        return data
    out = {**data, "isolation": "netns"}
    if out.get("nodes") is None:
        topology = out["topology"]
        parsed = (
            parse_topology(topology)
            if isinstance(topology, str)
            else Topology.model_validate(topology)
        )
        out["nodes"] = parsed.nodes
    return out


def check_network(nodes: int, network: NodeNetwork) -> None:
    """Links need a topology, and a topology's node count is the spec's ``nodes``."""
    if network.links and network.topology is None:
        raise ValueError(
            "links join datacenters: give a topology too, e.g. --topology dc1:2,dc2:1 "
            "--link dc1-dc2=20ms"
        )
    if network.topology is not None:
        if network.topology.nodes != nodes:
            raise ValueError(
                f"nodes {nodes}: the topology has {network.topology.nodes} nodes "
                f"({network.topology.text}); leave --nodes out or make them agree"
            )
        check_links(network.links, network.topology.datacenters)


class IsolatedSpec(CommonSpec, NodeIsolation, NodeNetwork):
    """A cluster of nodes in their own cgroups (limits) and optionally network namespaces
    (a subnet, datacenters and racks, emulated WAN links)."""

    backend: Literal[BackendKind.ISOLATED] = BackendKind.ISOLATED

    @model_validator(mode="before")
    @classmethod
    def _topology_defaults(cls, data: Any) -> Any:
        return with_topology(data) if isinstance(data, dict) else data

    @model_validator(mode="after")
    def _links_in_topology(self) -> IsolatedSpec:
        check_network(self.nodes, self)
        return self


def as_isolated(spec: CommonSpec) -> IsolatedSpec:
    """``spec`` as the isolated backend's variant; any other is a caller's mistake (the
    registry hands the isolated backend isolated specs only)."""
    if not isinstance(spec, IsolatedSpec):
        raise TypeError(f"the isolated backend got a {spec.backend.value} cluster's spec")
    return spec


def topology_of(spec: CommonSpec) -> Topology | None:
    """The datacenters and racks of ``spec``'s nodes; None for one datacenter (every
    backend but the isolated one, which has them with a topology)."""
    return spec.topology if isinstance(spec, IsolatedSpec) else None
