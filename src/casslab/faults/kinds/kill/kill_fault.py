"""``kind: kill``: SIGKILL to node ``target``'s process group (waited for, at most
:data:`DOWN_WAIT_S`); after ``for`` the cluster's own ``start`` starts every node that is
not running and waits until all are ready. Needs node processes casslab may signal."""

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

DOWN_WAIT_S = 10.0


@dataclass(frozen=True)
class KillFault(NodeProcessFault):
    name: str = "kill"

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        number = int(fault.target)
        node_signals.signal_node(cluster, number, signal.SIGKILL, group=True)
        node_signals.wait_down(cluster, number, DOWN_WAIT_S)
        return None


KILL = KillFault()
