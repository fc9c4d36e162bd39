"""What a trial's cluster is built from, and what the runner must do to get it (pure).

The plan's restart flags (:func:`casslab.experiment.ordering.with_restarts`), the runner's
cluster handling and the rule that stops a run whose cluster cannot start all decide from
this one module, so they cannot disagree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class ClusterAction(StrEnum):
    """What a trial needs done to the nodes before it runs."""

    KEEP = "keep"  # they run with the trial's configuration
    START = "start"  # no cluster yet: create one
    RECREATE = "recreate"  # node count, heap or version changed: a new, empty cluster
    RESTART = "restart"  # cassandra.yaml settings changed: restart, data kept


@dataclass(frozen=True)
class ClusterSetup:
    """What a trial's cluster is built from; trials with equal setups get equal clusters."""

    nodes: int
    heap: str | None
    version: str | None
    settings: str  # the cassandra.yaml settings as canonical JSON

    @classmethod
    def of(
        cls, nodes: int, heap: str | None, version: str | None, settings: Mapping[str, Any]
    ) -> ClusterSetup:
        return cls(nodes, heap, version, json.dumps(dict(settings), sort_keys=True, default=str))

    def describe(self) -> str:
        heap = f"heap {self.heap}" if self.heap else "default heap"
        version = f"Cassandra {self.version}" if self.version else "default Cassandra"
        settings = "" if self.settings == "{}" else f", settings {self.settings}"
        return f"{self.nodes} node(s), {heap}, {version}{settings}"


SHAPE_FIELDS = ("nodes", "heap", "version")  # a change of one of them makes a new cluster


def shape_change(current: ClusterSetup, wanted: ClusterSetup) -> str | None:
    """The first of :data:`SHAPE_FIELDS` that differs, or None."""
    for field in SHAPE_FIELDS:
        if getattr(current, field) != getattr(wanted, field):
            return field
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
