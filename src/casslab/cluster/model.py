"""Typed records of a cluster: what was asked (spec), what runs (nodes), what is on disk."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import model_validator

from casslab.cluster import collectors, presets
from casslab.cluster.backend_choice import choose_backend
from casslab.cluster.cluster_spec import MAX_LOCAL_NODES as MAX_LOCAL_NODES
from casslab.cluster.cluster_spec import BackendKind as BackendKind
from casslab.cluster.cluster_spec import CommonSpec
from casslab.cluster.cluster_spec import heap_mib as heap_mib
from casslab.cluster.external.external_state import External
from casslab.cluster.isolated.isolated_spec import (
    NodeIsolation,
    NodeNetwork,
    check_network,
    with_topology,
)
from casslab.cluster.isolated.isolated_state import Isolated
from casslab.cluster.ssh.ssh_spec import InventoryField
from casslab.cluster.ssh.ssh_state import SshHosts
from casslab.cqlaccess import CqlAccess
from casslab.net.links import Link, link_text
from casslab.record import Record

STATE_SCHEMA_VERSION = 1
LOCAL_DATACENTER = "datacenter1"  # SimpleSnitch's one datacenter: nodes without a topology


class ClusterSpec(CommonSpec, NodeIsolation, NodeNetwork, InventoryField):
    """A cluster as the user asked for it: the fields every backend reads
    (:class:`CommonSpec`) and each backend's own, in its folder (the isolated backend's
    :class:`NodeIsolation` and :class:`NodeNetwork`, the ssh backend's
    :class:`InventoryField`)."""

    @model_validator(mode="before")
    @classmethod
    def _choose_backend(cls, data: Any) -> Any:
        """The backend the fields ask for (:func:`choose_backend`), written into them."""
        if not isinstance(data, dict):
            return data
        kind = choose_backend(data)
        data = with_topology(data)
        if data.get("backend") is None and kind is BackendKind.LOCAL:
            return data
        return {**data, "backend": kind}

    @model_validator(mode="after")
    def _links_in_topology(self) -> ClusterSpec:
        check_network(self.nodes, self)
        return self


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
