"""The part of a cluster spec every backend reads (:class:`CommonSpec`) and the kinds of
backend (:class:`BackendKind`). Each backend's variant (the common fields, its own and its
``backend`` tag) lives in its folder; which one a raw spec asks for is
:mod:`casslab.cluster.backend_choice`'s. Pure.
"""

from __future__ import annotations

import ipaddress
import re
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator, model_validator

from casslab.cluster import collectors, jvm_options, node_versions, presets
from casslab.host.jdk import checked_java_home
from casslab.record import Record
from casslab.units import offset_ms

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_HEAP_RE = re.compile(r"^(\d+)([MmGg])$")
MAX_LOCAL_NODES = 9


class BackendKind(StrEnum):
    """Where a cluster's nodes run; each kind is one module or folder of
    :mod:`casslab.cluster`, registered in :mod:`casslab.cluster.registry`."""

    LOCAL = "local"  # JVMs on 127.0.0.n of this machine
    ISOLATED = "isolated"  # JVMs in their own cgroups, optionally network namespaces
    EXTERNAL = "external"  # a cluster casslab did not start (casslab attach): CQL only
    SSH = "ssh"  # JVMs on real hosts reached over SSH (casslab up --hosts hosts.yaml)


def heap_mib(heap: str) -> int:
    """``512M`` -> 512, ``1G`` -> 1024."""
    match = _HEAP_RE.match(heap)
    if match is None:
        raise ValueError(f"heap {heap!r}: expected a size like 512M or 1G")
    value = int(match.group(1))
    return value * 1024 if match.group(2) in "Gg" else value


class CommonSpec(Record):
    """The fields of a cluster every backend reads: its name, node count, Cassandra version,
    heap, addresses and ports, settings, clocks and JVM."""

    name: str = "casslab"
    # which backend runs the nodes; each backend's variant narrows it to its own kind (here,
    # after ``name``, where every state.json and experiment digest has had it)
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
