"""``kind: stop``: ``nodetool drain`` on node ``target``, then SIGTERM to its process
group (SIGKILL after :data:`STOP_GRACE_S`); after ``for`` the cluster's own ``start``
starts it and waits until it is ready. Needs node processes casslab may signal."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.errors import CasslabError, ClusterError
from casslab.faults import node_signals
from casslab.faults.fault_kind import Undo
from casslab.faults.node_fault import NodeProcessFault

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault

STOP_GRACE_S = 60.0
KILL_WAIT_S = 10.0


@dataclass(frozen=True)
class StopFault(NodeProcessFault):
    name: str = "stop"

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        number = int(fault.target)
        node_signals.check_faultable(cluster)
        try:
            cluster.nodetool(number, "drain", timeout_s=STOP_GRACE_S)
        except CasslabError as error:  # stop it anyway: the fault is the stop
            raise ClusterError(f"node {number}: nodetool drain failed ({error})") from error
        node_signals.signal_node(cluster, number, signal.SIGTERM, group=True)
        if not node_signals.wait_down(cluster, number, STOP_GRACE_S):
            node_signals.signal_node(cluster, number, signal.SIGKILL, group=True)
            node_signals.wait_down(cluster, number, KILL_WAIT_S)
        return None


STOP = StopFault()
