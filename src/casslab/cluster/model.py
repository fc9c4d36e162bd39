"""Typed records of a cluster: what was asked (spec), what runs (nodes), what is on disk."""

from __future__ import annotations

import ipaddress
import re
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator

from casslab.cluster import collectors, jvm_options, node_versions, presets
from casslab.cluster.external.external_state import External
from casslab.cluster.isolated.isolated_spec import (
    LIMIT_FIELDS,
    NodeIsolation,
    NodeNetwork,
)
from casslab.cluster.isolated.isolated_state import Isolated
from casslab.cluster.ssh.ssh_spec import InventoryField
from casslab.cluster.ssh.ssh_state import SshHosts
from casslab.cqlaccess import CqlAccess
from casslab.host.jdk import checked_java_home
from casslab.net.links import Link, check_links, link_text
from casslab.net.topology import Topology, parse_topology
from casslab.record import Record
from casslab.units import offset_ms

STATE_SCHEMA_VERSION = 1
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_HEAP_RE = re.compile(r"^(\d+)([MmGg])$")
MAX_LOCAL_NODES = 9
LOCAL_DATACENTER = "datacenter1"  # SimpleSnitch's one datacenter: nodes without a topology


def heap_mib(heap: str) -> int:
    """``512M`` -> 512, ``1G`` -> 1024."""
    match = _HEAP_RE.match(heap)
    if match is None:
        raise ValueError(f"heap {heap!r}: expected a size like 512M or 1G")
    value = int(match.group(1))
    return value * 1024 if match.group(2) in "Gg" else value


class BackendKind(StrEnum):
    """Where a cluster's nodes run; each kind is one module or folder of
    :mod:`casslab.cluster`, registered in :mod:`casslab.cluster.registry`."""

    LOCAL = "local"  # JVMs on 127.0.0.n of this machine
    ISOLATED = "isolated"  # JVMs in their own cgroups, optionally network namespaces
    EXTERNAL = "external"  # a cluster casslab did not start (casslab attach): CQL only
    SSH = "ssh"  # JVMs on real hosts reached over SSH (casslab up --hosts hosts.yaml)


class ClusterSpec(NodeIsolation, NodeNetwork, InventoryField):
    """A cluster as the user asked for it: the fields every backend reads, here, and each
    backend's own, in its folder (the isolated backend's :class:`NodeIsolation` and
    :class:`NodeNetwork`, the ssh backend's :class:`InventoryField`)."""

    name: str = "casslab"
    backend: BackendKind = BackendKind.LOCAL
    nodes: int = Field(default=1, ge=1, le=MAX_LOCAL_NODES)
    version: str | None = None  # None: CASSANDRA_HOME or the default 5.0.x
    heap: str | None = None  # None: sized from free memory and node count
    base_address: str = "127.0.0.1"  # node n listens on base_address + (n - 1)
    jmx_port_base: int = Field(default=7190, ge=1024, le=65000)  # node n: base + n
    native_port: int = Field(default=9042, ge=1, le=65535)
    storage_port: int = Field(default=7000, ge=1, le=65535)
    settings: dict[str, Any] = Field(default_factory=dict)  # cassandra.yaml by 5.0 names
    clock: dict[int, float] = Field(default_factory=dict)  # node -> clock offset, ms
    # casslab's wall clock in every node (4.1+), for skews and clock jumps; without it (and
    # without clock offsets) the nodes run Cassandra's own clock: casslab.cluster.clock_skew
    injectable_clock: bool = False
    # the JVM's garbage collector (None: Cassandra's G1 settings): casslab.cluster.collectors
    gc: str | None = None
    # a named settings preset under the user's settings (None: default): casslab.cluster.presets
    preset: str | None = None
    # added to the nodes' java command (-D properties, -XX: flags): casslab.cluster.jvm_options
    jvm_options: tuple[str, ...] = ()
    # nodes on another version than ``version`` from the start: casslab.cluster.node_versions
    node_versions: dict[int, str] = Field(default_factory=dict)
    # the JDK the nodes run on (None: $JAVA_HOME, else java on PATH): casslab.host.jdk
    java_home: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _choose_backend(cls, data: Any) -> Any:
        """Isolation or a limit asks for the isolated backend; a spec that names another
        backend with them is refused."""
        if not isinstance(data, dict):
            return data
        data = _with_topology(data)
        if data.get("hosts") is not None:
            return _with_hosts(data)
        isolated = str(data.get("isolation") or "process") != "process" or any(
            data.get(f) is not None for f in LIMIT_FIELDS
        )
        if not isolated:
            return data
        backend = data.get("backend")
        if backend is not None and str(backend) not in ("isolated", "local"):
            raise ValueError(
                f"backend {backend}: isolation and node limits need the isolated backend"
            )
        return {**data, "backend": "isolated"}

    @field_validator("clock", mode="before")
    @classmethod
    def _clock(cls, value: Any) -> Any:
        """``["2=-500ms"]`` (as ``--clock`` takes it) or ``{2: "-500ms"}`` -> ms per node."""
        if isinstance(value, list | tuple):
            pairs = [str(v).partition("=") for v in value]
            if any(not sep or not node.strip().isdigit() for node, sep, _ in pairs):
                raise ValueError(f"clock {list(value)}: expected NODE=OFFSET, e.g. 2=-500ms")
            value = {int(node): offset for node, _, offset in pairs}
        if isinstance(value, dict):
            out: dict[int, Any] = {}
            for node, offset in value.items():
                parsed = offset_ms(offset) if isinstance(offset, str) else offset
                if parsed is None:
                    raise ValueError(
                        f"clock offset {offset!r} of node {node}: give a number with its "
                        "unit, e.g. -500ms or +1.5s"
                    )
                out[int(node)] = parsed
            return out
        return value

    @field_validator("node_versions", mode="before")
    @classmethod
    def _node_versions(cls, value: Any) -> Any:
        return node_versions.parse(value) if value is not None else {}

    @model_validator(mode="before")
    @classmethod
    def _offsets_need_the_clock(cls, data: Any) -> Any:
        """Clock offsets are injected through casslab's clock: asking for them asks for it."""
        if isinstance(data, dict) and data.get("clock"):
            return {**data, "injectable_clock": True}
        return data

    @model_validator(mode="after")
    def _links_in_topology(self) -> ClusterSpec:
        if self.links and self.topology is None:
            raise ValueError(
                "links join datacenters: give a topology too, e.g. --topology dc1:2,dc2:1 "
                "--link dc1-dc2=20ms"
            )
        if self.topology is not None:
            if self.topology.nodes != self.nodes:
                raise ValueError(
                    f"nodes {self.nodes}: the topology has {self.topology.nodes} nodes "
                    f"({self.topology.text}); leave --nodes out or make them agree"
                )
            check_links(self.links, self.topology.datacenters)
        return self

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME_RE.match(value):
            raise ValueError(
                f"cluster name {value!r}: use letters, digits, '.', '_' or '-' (max 64)"
            )
        return value

    @field_validator("version")
    @classmethod
    def _version(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^\d+\.\d+\.\d+$", value):
            raise ValueError(f"Cassandra version {value!r} is not of the form X.Y.Z, e.g. 5.0.9")
        return value

    @field_validator("gc")
    @classmethod
    def _gc(cls, value: str | None) -> str | None:
        return collectors.canonical(value) if value is not None else None

    @field_validator("preset")
    @classmethod
    def _preset(cls, value: str | None) -> str | None:
        return presets.field_value(value)

    @field_validator("java_home")
    @classmethod
    def _java_home(cls, value: str | None) -> str | None:
        return checked_java_home(value) if value is not None else None

    @field_validator("jvm_options")
    @classmethod
    def _jvm_options(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return jvm_options.checked(value)

    @field_validator("heap")
    @classmethod
    def _heap(cls, value: str | None) -> str | None:
        if value is not None:
            mib = heap_mib(value)
            if mib < 256:
                raise ValueError(f"heap {value!r}: Cassandra needs at least 256M")
        return value

    @field_validator("base_address")
    @classmethod
    def _address(cls, value: str) -> str:
        address = ipaddress.ip_address(value)
        if not address.is_loopback:
            raise ValueError(
                f"base_address {value!r}: local clusters listen on loopback (127.x.y.z) only"
            )
        return value

    def address(self, number: int) -> str:
        return str(ipaddress.ip_address(self.base_address) + (number - 1))


def _with_hosts(data: dict[str, Any]) -> dict[str, Any]:
    """An inventory file asks for the ssh backend; isolation and limits are refused."""
    backend = data.get("backend")
    if backend is not None and str(backend) != "ssh":
        raise ValueError(f"backend {backend}: an inventory of hosts needs the ssh backend")
    asked = [f for f in LIMIT_FIELDS if data.get(f) is not None]
    if str(data.get("isolation") or "process") != "process" or data.get("topology"):
        asked.append("isolation" if data.get("topology") is None else "topology")
    if asked:
        raise ValueError(
            f"{', '.join(asked)}: not for nodes on hosts of an inventory (each host is a "
            "node; datacenters and racks come from the inventory's dc and rack)"
        )
    if data.get("java_home") is not None:
        raise ValueError(
            f"java_home {data['java_home']}: nodes on hosts of an inventory run the JDK of "
            "their host's java_home in the inventory; give it there"
        )
    return {**data, "backend": "ssh"}


def _with_topology(data: dict[str, Any]) -> dict[str, Any]:
    """A topology asks for netns nodes (its links join the datacenters' bridges) and gives
    the node count when none is given; a topology with process isolation is refused."""
    if data.get("topology") is None:
        return data
    isolation = str(data.get("isolation") or "netns")
    if isolation != "netns":
        raise ValueError(
            f"isolation {isolation}: datacenters and links need nodes in network namespaces; "
            "use --isolation netns (the default with --topology)"
        )
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


class NodeStatus(StrEnum):
    UP = "up"  # process alive and CQL answering
    STARTING = "starting"  # process alive, CQL not yet answering
    DOWN = "down"  # no process


class Node(Record):
    """One node of a cluster: its addresses, its process (None where casslab does not run
    it), where its files are, and the cgroup it runs in, if any. What the metrics sample."""

    number: int
    address: str
    native_port: int
    storage_port: int
    jmx_port: int
    directory: Path
    pid: int | None = None
    pid_start_time: float | None = None  # process create time: guards against PID reuse
    cgroup: str | None = None  # relative to each controller's mount, e.g. casslab/x/node1
    netns: str | None = None  # the network namespace the node runs in, if not the host's
    host_interface: str | None = None  # the host end of the node's veth pair (netns nodes)
    jmx_address: str = "127.0.0.1"  # where its JMX listens (netns nodes: their address)
    datacenter: str | None = None  # None: SimpleSnitch's datacenter1 (no topology)
    rack: str | None = None
    # A node casslab does not run (an external cluster): reached over CQL only, with
    # ``access`` (user, password variable, CA); no process, files, JMX or cgroup of it here.
    cql_only: bool = False
    access: CqlAccess | None = None
    host_id: str | None = None
    release_version: str | None = None
    # A node on another Cassandra than the cluster's (a rolling upgrade under way): its
    # version and jars; None: the cluster's
    version: str | None = None
    lib_dir: Path | None = None

    @property
    def conf_dir(self) -> Path:
        return self.directory / "conf"

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def commitlog_dir(self) -> Path:
        return self.directory / "commitlog"

    @property
    def hints_dir(self) -> Path:
        return self.directory / "hints"

    @property
    def saved_caches_dir(self) -> Path:
        return self.directory / "saved_caches"

    @property
    def cdc_dir(self) -> Path:
        return self.directory / "cdc_raw"

    @property
    def logs_dir(self) -> Path:
        return self.directory / "logs"

    @property
    def log_file(self) -> Path:
        return self.logs_dir / "system.log"

    @property
    def stdout_file(self) -> Path:
        return self.logs_dir / "stdout.log"

    @property
    def contact_point(self) -> str:
        return f"{self.address}:{self.native_port}"


class ClusterState(Record):
    """What ``state.json`` in the cluster directory holds; every CLI call reads it."""

    schema_version: int = STATE_SCHEMA_VERSION
    spec: ClusterSpec
    cassandra_version: str
    lib_dir: Path
    java: Path
    java_feature: int
    java_version: str | None = None  # e.g. 17.0.15 (None: a cluster of an older casslab)
    heap: str
    directory: Path
    nodes: list[Node]
    settings: dict[str, Any]  # the normalized user settings applied to every node
    created_at: datetime
    cassandra_source: str = "maven"
    # False until the cluster was ready once: a cluster that never started holds no data,
    # so `up` may create it anew. Older state files (before this field) were all ready.
    started_once: bool = True
    isolated: Isolated | None = None  # the isolated backend's limits and network
    external: External | None = None  # an external cluster: how casslab reaches it
    ssh: SshHosts | None = None  # an ssh cluster: its hosts and its nodes' processes

    @property
    def jdk(self) -> str:
        """The nodes' JDK as a trial records it: ``17.0.15 at /usr/lib/jvm/.../bin/java``."""
        version = self.java_version or f"Java {self.java_feature}"
        return f"{version} at {self.java}"


# The ClusterSpec fields a stopped cluster keeps: asking `up` for another value of one of
# them is a different cluster, not a start of this one.
FIXED_FIELDS = (
    "nodes",
    "version",
    "heap",
    "base_address",
    "jmx_port_base",
    "native_port",
    "isolation",
    "node_size",
    "cpus",
    "memory",
    "cpuset",
    "topology",
    "links",
    "gc",
    "preset",
    "jvm_options",
    "node_versions",
    "java_home",
)


def _links_text(links: tuple[Link, ...]) -> str:
    return " ".join(f"--link {link_text(link)}" for link in links) or "no links"


def spec_mismatches(state: ClusterState, spec: ClusterSpec, given: frozenset[str]) -> list[str]:
    """How ``spec`` differs from the stored cluster ``state``, in the fields the user gave
    explicitly (``given``): one line each, naming the asked and the stored value."""
    stored: dict[str, object] = {
        "nodes": len(state.nodes),
        "version": state.cassandra_version,
        "heap": state.heap,
        "base_address": state.spec.base_address,
        "jmx_port_base": state.spec.jmx_port_base,
        "native_port": state.spec.native_port,
        **{f: getattr(state.spec, f) for f in FIXED_FIELDS[6:]},
    }
    stored["links"] = _links_text(state.spec.links)
    stored["gc"] = state.spec.gc or collectors.G1
    stored["preset"] = state.spec.preset or presets.DEFAULT
    stored["jvm_options"] = " ".join(state.spec.jvm_options) or "none"
    stored["node_versions"] = {n.number: n.version for n in state.nodes if n.version is not None}
    stored["java_home"] = state.spec.java_home or "$JAVA_HOME or java on PATH"
    problems: list[str] = []
    for field in FIXED_FIELDS:
        asked = getattr(spec, field)
        if field not in given or asked is None:
            continue
        if field == "links":  # as --link writes them
            asked = _links_text(asked)
        if field == "jvm_options":
            asked = " ".join(asked) or "none"
        same = (
            heap_mib(str(asked)) == heap_mib(str(stored[field]))
            if field == "heap"
            else str(asked) == str(stored[field])
        )
        if not same:
            problems.append(f"{field}: asked {asked}, the stored cluster has {stored[field]}")
    return problems
