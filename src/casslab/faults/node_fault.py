"""What the kinds that act on one node's process (kill, stop, pause) share: a node target,
no fields of their own, nothing to check in the file, and a cluster whose node processes
casslab may signal (:func:`casslab.faults.node_signals.check_faultable`). A kind says how
it begins and ends; one that leaves the node down restarts it through the cluster's own
``start``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.faults import node_signals
from casslab.faults.fault_kind import FileFacts, NoFields, Target, Undo
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


@dataclass(frozen=True)
class NodeProcessFault:
    name: str = ""
    fields: type[Record] = NoFields
    target: Target = Target.NODE
    marks_down: bool = True
    ends_jvm: bool = True  # its hint counters start again from zero
    steps_clock: bool = False
    reshapes_cluster: bool = False
    ends_when_done: bool = False

    def describe(self, fields: Record) -> str:
        return ""

    def file_problems(self, index: int, fault: Fault, facts: FileFacts) -> list[str]:
        return []

    def check(self, cluster: Cluster, fault: Fault) -> None:
        node_signals.check_faultable(cluster)

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        raise NotImplementedError

    def end(self, cluster: Cluster, fault: Fault, undo: Undo, timeout_s: float) -> None:
        """Start every node that is not running and wait until all are ready."""
        cluster.start(timeout_s=timeout_s)
