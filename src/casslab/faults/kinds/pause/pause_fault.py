"""``kind: pause``: SIGSTOP to node ``target``'s JVM (it holds its connections but answers
nothing); SIGCONT after ``for``. Needs node processes casslab may signal."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.faults import node_signals
from casslab.faults.fault_kind import Undo
from casslab.faults.node_fault import NodeProcessFault

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


@dataclass(frozen=True)
class PauseFault(NodeProcessFault):
    name: str = "pause"
    ends_jvm: bool = False

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        node_signals.signal_node(cluster, int(fault.target), signal.SIGSTOP, group=False)
        return None

    def end(self, cluster: Cluster, fault: Fault, undo: Undo, timeout_s: float) -> None:
        node_signals.signal_node(cluster, int(fault.target), signal.SIGCONT, group=False)


PAUSE = PauseFault()
