"""``kind: kill``: SIGKILL to node ``target``'s process group (waited for, at most
:data:`DOWN_WAIT_S`); after ``for`` the cluster's own ``start`` starts every node that is
not running and waits until all are ready. Needs node processes casslab may signal."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.faults import node_signals
from casslab.faults.fault_kind import FileFacts, NoFields, Target, Undo
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault

DOWN_WAIT_S = 10.0


@dataclass(frozen=True)
class KillFault:
    name: str = "kill"
    fields: type[Record] = NoFields
    target: Target = Target.NODE
    marks_down: bool = True
    ends_jvm: bool = True  # its hint counters start again from zero
    steps_clock: bool = False

    def describe(self, fields: Record) -> str:
        return ""

    def file_problems(self, index: int, fault: Fault, facts: FileFacts) -> list[str]:
        return []

    def check(self, cluster: Cluster, fault: Fault) -> None:
        node_signals.check_faultable(cluster)

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        number = int(fault.target)
        node_signals.signal_node(cluster, number, signal.SIGKILL, group=True)
        node_signals.wait_down(cluster, number, DOWN_WAIT_S)
        return None

    def end(self, cluster: Cluster, fault: Fault, undo: Undo, timeout_s: float) -> None:
        cluster.start(timeout_s=timeout_s)


KILL = KillFault()
