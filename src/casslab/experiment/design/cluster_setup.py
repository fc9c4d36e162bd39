"""What a trial's cluster is built from, and what the runner must do to get it (pure).

The plan's restart flags (:func:`casslab.experiment.design.trial_order.with_restarts`), the runner's
cluster handling and the rule that stops a run whose cluster cannot start all decide from
this one module, so they cannot disagree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from casslab.cluster import ISOLATION_FIELDS, NodeIsolation
from casslab.net.links import Link, link_text
from casslab.net.presets import TopologyChoice
from casslab.net.topology import Topology


class ClusterAction(StrEnum):
    """What a trial needs done to the nodes before it runs."""

    KEEP = "keep"  # they run with the trial's configuration
    START = "start"  # no cluster yet: create one
    RECREATE = "recreate"  # node count, heap, version, isolation or topology: a new cluster
    RESTART = "restart"  # cassandra.yaml settings changed: restart, data kept


@dataclass(frozen=True)
class ClusterSetup:
    """What a trial's cluster is built from; trials with equal setups get equal clusters."""

    nodes: int
    heap: str | None
    version: str | None
    settings: str  # the cassandra.yaml settings as canonical JSON
    node_isolation: NodeIsolation = field(default_factory=NodeIsolation)  # isolation, limits
    # datacenters and the links between them (None: one datacenter, no links)
    topology: Topology | None = None
    links: tuple[Link, ...] = ()
    topology_name: str | None = None  # what the file calls it: a preset's name, ...
    gc: str | None = None  # the nodes' collector (None: Cassandra's G1)
    preset: str | None = None  # the settings preset (None: default): casslab.cluster.presets
    node_versions: tuple[tuple[int, str], ...] = ()  # nodes on another version from the start
    java_home: str | None = None  # the nodes' JDK (None: $JAVA_HOME, else java on PATH)

    @classmethod
    def of(
        cls,
        nodes: int,
        heap: str | None,
        version: str | None,
        settings: Mapping[str, Any],
        isolation: Mapping[str, Any] | None = None,
        topology: TopologyChoice | None = None,
        gc: str | None = None,
        preset: str | None = None,
        node_versions: Mapping[int, str] | None = None,
        java_home: str | None = None,
    ) -> ClusterSetup:
        """``isolation``: values of :data:`~casslab.cluster.ISOLATION_FIELDS` (missing
        ones: the default)."""
        given = {k: v for k, v in (isolation or {}).items() if k in ISOLATION_FIELDS}
        shape: dict[str, Any] = {}
        if topology is not None:
            shape = {
                "topology": topology.topology,
                "links": topology.links,
                "topology_name": topology.name,
            }
        settings_text = json.dumps(dict(settings), sort_keys=True, default=str)
        return cls(
            nodes,
            heap,
            version,
            settings_text,
            NodeIsolation.model_validate(given),
            **shape,
            gc=gc,
            preset=preset,
            node_versions=tuple(sorted((node_versions or {}).items())),
            java_home=java_home,
        )

    def value(self, name: str) -> Any:
        """The value of the setup's field ``name``, an isolation field's too."""
        if name in ISOLATION_FIELDS:
            return getattr(self.node_isolation, name)
        return getattr(self, name)

    def spec_fields(self) -> dict[str, Any]:
        """The :class:`casslab.cluster.ClusterSpec` fields this setup fixes, but for the
        settings (the trial has them as given, not as JSON)."""
        fields: dict[str, Any] = {"nodes": self.nodes, "heap": self.heap, "version": self.version}
        fields |= {"gc": self.gc} if self.gc is not None else {}
        fields |= {"preset": self.preset} if self.preset is not None else {}
        fields |= {"node_versions": dict(self.node_versions)} if self.node_versions else {}
        fields |= {"java_home": self.java_home} if self.java_home is not None else {}
        fields |= {name: getattr(self.node_isolation, name) for name in ISOLATION_FIELDS}
        if self.topology is not None:
            fields |= {"topology": self.topology, "links": self.links}
        return fields

    def describe(self, *, settings: bool = True) -> str:
        heap = f"heap {self.heap}" if self.heap else "default heap"
        version = f"Cassandra {self.version}" if self.version else "default Cassandra"
        isolation = "".join(f", {part}" for part in self._isolation_parts())
        gc = f", {self.gc} collector" if self.gc else ""
        preset = f", preset {self.preset}" if self.preset else ""
        preset += "".join(f", node {n} on {v}" for n, v in self.node_versions)
        preset += f", JDK {self.java_home}" if self.java_home else ""
        text = f"{self.nodes} node(s), {heap}, {version}{gc}{preset}{isolation}"
        if settings and self.settings != "{}":
            text += f", settings {self.settings}"
        return text

    def isolation_values(self) -> dict[str, str]:
        """The isolation fields that are not at their defaults, as text (empty: plain
        processes without limits)."""
        default = NodeIsolation()
        values: dict[str, str] = {}
        for name in ISOLATION_FIELDS:
            value = getattr(self.node_isolation, name)
            if value != getattr(default, name):
                values[name] = f"{value:g}" if isinstance(value, float) else str(value)
        if self.topology is not None:
            shape = self.topology.text
            name = self.topology_name or shape
            values["topology"] = shape if name == shape else f"{name} ({shape})"
            if self.links:
                values["links"] = ",".join(link_text(link) for link in self.links)
        return values

    def _isolation_parts(self) -> list[str]:
        return [f"{k.replace('_', ' ')} {v}" for k, v in self.isolation_values().items()]


_OPTION = re.compile(
    r"--(node-size|cpuset|cpus|cpu-scale|memory|io-read|io-write|heap|topology|racks|link)\b"
)


def in_file_words(message: str) -> str:
    """A cluster message in the experiment file's words (``--node-size t2.small`` ->
    ``node_size t2.small``): the cluster package speaks ``casslab up``'s options."""
    return _OPTION.sub(lambda match: match.group(1).replace("-", "_"), message)


SHAPE_FIELDS = (
    "topology",
    "nodes",
    "heap",
    "version",
    "gc",
    "preset",
    "java_home",
    *ISOLATION_FIELDS,
    "links",
)
"""A change of one of them makes a new cluster (the isolated backend fixes a node's
network and limits, and its datacenter and links, when it creates the node; a preset's
storage_compatibility_mode NONE cannot go back to CASSANDRA_4 on the same data). The
topology comes first: a change of it is the reason, not the node count it brings."""


def shape_change(current: ClusterSetup, wanted: ClusterSetup) -> str | None:
    """The first of :data:`SHAPE_FIELDS` that differs, or None."""
    for name in SHAPE_FIELDS:
        if current.value(name) != wanted.value(name):
            return name
    return None


def cluster_action(current: ClusterSetup | None, wanted: ClusterSetup) -> ClusterAction:
    """What turns the cluster set up as ``current`` (None: there is none) into ``wanted``."""
    if current is None:
        return ClusterAction.START
    if shape_change(current, wanted) is not None:
        return ClusterAction.RECREATE
    if current.settings != wanted.settings:
        return ClusterAction.RESTART
    return ClusterAction.KEEP
