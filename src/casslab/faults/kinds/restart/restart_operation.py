"""``kind: restart``: node ``target`` drained (``nodetool drain``), stopped (SIGTERM, then
SIGKILL after the stop fault's grace) and started by the cluster's own ``start``, which
returns once every node sees every other UP/NORMAL. Steps: drain, stop, start."""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.faults import node_signals
from casslab.faults.kinds.stop.stop_fault import KILL_WAIT_S, STOP_GRACE_S
from casslab.faults.operation import OPERATION_TIMEOUT_S, NodeOperation, Stopwatch

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


@dataclass(frozen=True)
class RestartOperation(NodeOperation):
    name: str = "restart"
    ends_jvm: bool = True  # its hint counters start again from zero

    def run(self, cluster: Cluster, fault: Fault, watch: Stopwatch) -> None:
        restart_node(cluster, int(fault.target), watch)


def restart_node(
    cluster: Cluster,
    number: int,
    watch: Stopwatch,
    timeout_s: float = OPERATION_TIMEOUT_S,
    before_start: Callable[[], None] | None = None,
) -> None:
    """Drain, stop and start node ``number``, each a step of ``watch``; ``before_start``
    runs while it is stopped (an upgrade changes its version)."""
    with watch.step(number, "drain"):
        cluster.nodetool(number, "drain", timeout_s=STOP_GRACE_S)
    with watch.step(number, "stop"):
        node_signals.signal_node(cluster, number, signal.SIGTERM, group=True)
        if not node_signals.wait_down(cluster, number, STOP_GRACE_S):
            node_signals.signal_node(cluster, number, signal.SIGKILL, group=True)
            node_signals.wait_down(cluster, number, KILL_WAIT_S)
    if before_start is not None:
        before_start()
    with watch.step(number, "start"):
        cluster.start(timeout_s=timeout_s)


RESTART = RestartOperation()
