"""``kind: replace``, ``target: 2``: node 2 dies for good (SIGKILL: no drain, as a failed
host) and a new node replaces it with Cassandra's replace address
(``-Dcassandra.replace_address_first_boot``) on the cluster's next address: it takes the
dead node's tokens and streams their data from the other replicas; the operation ends
once every node sees the new one UP/NORMAL and none lists the dead one
(:meth:`~casslab.cluster.capabilities.RingMembers.replace`). Refused before anything
starts: the last node, a user keyspace at replication factor 1 (the dead node held the
only copy of its ranges), one more heap past this machine's memory, a cluster whose nodes
casslab does not run. Steps: kill, replace (with the bytes the new node received, JMX)."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.cluster.capabilities import processes_of, ring_of
from casslab.errors import ConfigError
from casslab.faults import node_signals, streaming
from casslab.faults.kinds.decommission.decommission_operation import (
    REPLICATION,
    decommission_problem,
    replication_factors,
)
from casslab.faults.kinds.stop.stop_fault import KILL_WAIT_S
from casslab.faults.operation import OPERATION_TIMEOUT_S, NodeOperation, Stopwatch

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


@dataclass(frozen=True)
class ReplaceOperation(NodeOperation):
    name: str = "replace"
    ends_jvm: bool = True
    reshapes_cluster: bool = True

    def nodes_after(self, numbers: tuple[int, ...], fault: Fault) -> tuple[int, ...]:
        number = int(fault.target)
        problem = decommission_problem(number, len(numbers), {})  # the last node: none left
        if problem is not None:
            raise ConfigError(problem)
        # the replacement takes the next number, as an added node does
        return (*(n for n in numbers if n != number), max(numbers) + 1)

    def check(self, cluster: Cluster, fault: Fault) -> None:
        processes_of(cluster)
        factors = replication_factors(cluster.session().execute(REPLICATION))
        ring_of(cluster).check_replace(int(fault.target), factors)

    def run(self, cluster: Cluster, fault: Fault, watch: Stopwatch) -> None:
        number = int(fault.target)
        self.check(cluster, fault)  # the ring may have changed since the timeline began
        with watch.step(number, "kill"):
            node_signals.signal_node(cluster, number, signal.SIGKILL, group=True)
            node_signals.wait_down(cluster, number, KILL_WAIT_S)
        cluster.close_sessions()  # the driver's pool still names the dead node
        with watch.step(number, "replace"):
            new = ring_of(cluster).replace(number, OPERATION_TIMEOUT_S)
        got = streaming.streamed(cluster, new)
        if got is not None:
            watch.steps[-1] = watch.steps[-1].model_copy(update={"bytes_streamed": got[1]})


REPLACE = ReplaceOperation()
