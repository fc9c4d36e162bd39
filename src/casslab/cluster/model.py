"""Typed records of a cluster: what was asked (spec), what runs (nodes), what is on disk."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, TypeAdapter, model_validator

from casslab.cluster import collectors, presets
from casslab.cluster.backend_choice import choose_backend
from casslab.cluster.backend_state import from_slots
from casslab.cluster.cluster_spec import MAX_LOCAL_NODES as MAX_LOCAL_NODES
from casslab.cluster.cluster_spec import BackendKind as BackendKind
from casslab.cluster.cluster_spec import CommonSpec
from casslab.cluster.cluster_spec import heap_mib as heap_mib
from casslab.cluster.external.external_spec import ExternalSpec
from casslab.cluster.external.external_state import External
from casslab.cluster.isolated.isolated_spec import MOOT_FIELDS, IsolatedSpec
from casslab.cluster.isolated.isolated_state import Isolated
from casslab.cluster.local.local_spec import LocalSpec
from casslab.cluster.ssh.ssh_spec import SshSpec
from casslab.cluster.ssh.ssh_state import SshHosts
from casslab.cqlaccess import CqlAccess
from casslab.net.links import Link, link_text
from casslab.record import Record

# state.json's schema: still 1 with the tagged ``backend_state`` (docs/design/cluster-spec.md,
# step 6). This casslab reads every state.json written so far, those with the slots
# ``isolated``/``external``/``ssh`` too (:func:`from_slots`); an older casslab calls one it
# wrote unreadable (``backend_state`` is a key it does not know) whatever this number says,
# as it validates the file before it compares the number.
STATE_SCHEMA_VERSION = 1
LOCAL_DATACENTER = "datacenter1"  # SimpleSnitch's one datacenter: nodes without a topology


SpecVariant = type[LocalSpec] | type[IsolatedSpec] | type[SshSpec] | type[ExternalSpec]

SPEC_VARIANTS: dict[BackendKind, SpecVariant] = {
    BackendKind.LOCAL: LocalSpec,
    BackendKind.ISOLATED: IsolatedSpec,
    BackendKind.SSH: SshSpec,
    BackendKind.EXTERNAL: ExternalSpec,
}
"""Each backend's variant of a cluster spec, in its folder: a new backend adds one line here
and one to :data:`ClusterSpec`'s union."""


def _backend_fields() -> dict[str, tuple[Any, list[str]]]:
    """Every field some backend's variant has beyond the common ones: its default and the
    backends that have it."""
    out: dict[str, tuple[Any, list[str]]] = {}
    for kind, variant in SPEC_VARIANTS.items():
        for name, info in variant.model_fields.items():
            if name in CommonSpec.model_fields:
                continue
            default, owners = out.get(name, (info.get_default(call_default_factory=True), []))
            out[name] = (default, [*owners, kind.value])
    return out


_BACKEND_FIELDS = _backend_fields()


def _at_default(value: Any, default: Any) -> bool:
    """``value`` (as given or as a state.json holds it) is the field's default."""
    if isinstance(value, list | tuple) and isinstance(default, tuple):
        return tuple(value) == default
    return bool(value == default)


def _tagged(data: Any) -> Any:
    """A raw spec with the ``backend`` it asks for (:func:`choose_backend`) written into it
    and the fields of other backends that hold their defaults left out (a state.json of an
    earlier casslab holds every backend's field) and the moot ones
    (:data:`MOOT_FIELDS`); such a field given a value is refused, naming the backends it is
    for."""
    if not isinstance(data, dict):
        return data
    kind = choose_backend(data)
    own = SPEC_VARIANTS[kind].model_fields
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name in own or name not in _BACKEND_FIELDS:
            out[name] = value
            continue
        default, owners = _BACKEND_FIELDS[name]
        if name not in MOOT_FIELDS and not _at_default(value, default):
            raise ValueError(
                f"{name} {value!r}: a field of {' and '.join(owners)} clusters, not of this "
                f"{kind.value} cluster; leave it out"
            )
    return {**out, "backend": kind}


ClusterSpec = Annotated[
    Annotated[LocalSpec | IsolatedSpec | SshSpec | ExternalSpec, Field(discriminator="backend")],
    BeforeValidator(_tagged),
]
"""A cluster as the user asked for it: the variant of the backend it asks for, each in its
folder (:class:`LocalSpec`, :class:`IsolatedSpec`, :class:`SshSpec`,
:class:`ExternalSpec`), all made of :class:`CommonSpec` and their own fields. Read one with
:func:`parse_spec` or :func:`cluster_spec`; a record holding one (:class:`ClusterState`)
reads it the same way."""

_TAGGED: TypeAdapter[dict[str, Any]] = TypeAdapter(
    Annotated[dict[str, Any], AfterValidator(_tagged)]
)


def parse_spec(data: Mapping[str, Any]) -> ClusterSpec:
    """The variant ``data`` asks for, validated; a bad field or a contradiction raises
    :class:`pydantic.ValidationError`, its errors located at the field (``heap``), as a
    model's are."""
    tagged = _TAGGED.validate_python(dict(data))
    return SPEC_VARIANTS[tagged["backend"]].model_validate(tagged)


def cluster_spec(**fields: Any) -> ClusterSpec:
    """:func:`parse_spec` of keyword fields, as ``casslab up`` gives them."""
    return parse_spec(fields)


BackendState = Annotated[Isolated | SshHosts | External, Field(discriminator="backend")]
"""What a cluster's state keeps of its backend, each backend's record in its folder, tagged
by its ``backend`` (:class:`Isolated`, :class:`SshHosts`, :class:`External`; a local
cluster keeps none): a new backend with a record adds it to this union. Its readers ask the
backend's accessor (``isolated_of``, ``ssh_hosts_of``, ``external_of``)."""


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
    # the backend's own record (None: a local cluster): an isolated cluster's limits and
    # network, an ssh cluster's hosts and its nodes' processes, how casslab reaches an
    # external cluster; a state of an earlier casslab kept it in the slots
    # isolated/external/ssh (read by :func:`from_slots`)
    backend_state: BackendState | None = None

    @model_validator(mode="before")
    @classmethod
    def _slots(cls, data: Any) -> Any:
        return from_slots(data)

    @model_validator(mode="after")
    def _record_of_its_backend(self) -> ClusterState:
        record = self.backend_state
        if record is not None and record.backend is not self.spec.backend:
            raise ValueError(
                f"backend_state: a record of the {record.backend.value} backend, in the state "
                f"of {self.spec.backend.value} cluster {self.spec.name!r}"
            )
        return self

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


def spec_field(spec: CommonSpec, name: str) -> Any:
    """Field ``name`` of ``spec``; a field of another backend's variant reads as its
    default (a local cluster's ``cpus`` is None, its ``isolation`` process)."""
    if name in type(spec).model_fields:
        return getattr(spec, name)
    return _BACKEND_FIELDS[name][0]


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
        **{f: spec_field(state.spec, f) for f in FIXED_FIELDS[6:]},
    }
    stored["links"] = _links_text(spec_field(state.spec, "links"))
    stored["gc"] = state.spec.gc or collectors.G1
    stored["preset"] = state.spec.preset or presets.DEFAULT
    stored["jvm_options"] = " ".join(state.spec.jvm_options) or "none"
    stored["node_versions"] = {n.number: n.version for n in state.nodes if n.version is not None}
    stored["java_home"] = state.spec.java_home or "$JAVA_HOME or java on PATH"
    problems: list[str] = []
    for field in FIXED_FIELDS:
        asked = spec_field(spec, field)
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
