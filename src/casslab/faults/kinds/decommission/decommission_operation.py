"""``kind: decommission``: node ``target`` streams its ranges to the nodes that take them
(``nodetool decommission``), leaves the ring, is stopped and leaves the cluster's record
(:func:`~casslab.cluster.capabilities.ring_of`). Refused before anything starts: the last
node, a cluster that would keep fewer nodes than a keyspace's replication factor (as
Cassandra refuses it, said before the load starts), and a cluster whose nodes casslab does
not run. Steps: decommission (with the bytes it streamed, JMX), stop."""

from __future__ import annotations

import signal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from casslab.cluster.capabilities import processes_of, ring_of
from casslab.errors import ConfigError
from casslab.faults import node_signals, streaming
from casslab.faults.kinds.stop.stop_fault import KILL_WAIT_S, STOP_GRACE_S
from casslab.faults.operation import OPERATION_TIMEOUT_S, NodeOperation, Stopwatch

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault

REPLICATION = "SELECT keyspace_name, replication FROM system_schema.keyspaces"


def replication_factors(rows: Iterable[Any]) -> dict[str, int]:
    """Each user keyspace's largest replication factor (of any datacenter), from rows of
    :data:`REPLICATION`; Cassandra's own keyspaces (``system*``) are left out."""
    found: dict[str, int] = {}
    for row in rows:
        name = str(row.keyspace_name)
        if name.startswith("system"):
            continue
        replication: Mapping[str, str] = row.replication or {}
        factors = [int(v) for k, v in replication.items() if k != "class" and str(v).isdigit()]
        found[name] = max(factors, default=0)
    return found


def decommission_problem(number: int, nodes: int, factors: Mapping[str, int]) -> str | None:
    """Why node ``number`` of ``nodes`` may not leave, given the keyspaces' replication
    factors; None when it may (pure)."""
    if nodes <= 1:
        return f"node {number} is the cluster's last node: a cluster keeps one at least"
    short = {k: rf for k, rf in sorted(factors.items()) if rf > nodes - 1}
    if short:
        listed = ", ".join(f"{k} (RF {rf})" for k, rf in short.items())
        return (
            f"after decommissioning node {number}, {nodes - 1} node(s) would hold "
            f"keyspaces replicated more times: {listed}; lower their replication factor "
            "or add a node first"
        )
    return None


@dataclass(frozen=True)
class DecommissionOperation(NodeOperation):
    name: str = "decommission"
    ends_jvm: bool = True

    def check(self, cluster: Cluster, fault: Fault) -> None:
        processes_of(cluster)
        ring_of(cluster)
        number = int(fault.target)
        rows = cluster.session().execute(REPLICATION)
        problem = decommission_problem(number, len(cluster.nodes), replication_factors(rows))
        if problem is not None:
            raise ConfigError(f"decommission of cluster {cluster.name!r}: {problem}")

    def run(self, cluster: Cluster, fault: Fault, watch: Stopwatch) -> None:
        number = int(fault.target)
        self.check(cluster, fault)  # the ring may have changed since the timeline began
        before = streaming.streamed(cluster, number)
        with watch.step(number, "decommission"):
            cluster.nodetool(number, "decommission", timeout_s=OPERATION_TIMEOUT_S)
        after = streaming.streamed(cluster, number)
        if before is not None and after is not None:
            sent = after[0] - before[0]
            step = watch.steps[-1].model_copy(update={"bytes_streamed": sent})
            watch.steps[-1] = step
        with watch.step(number, "stop"):
            node_signals.signal_node(cluster, number, signal.SIGTERM, group=True)
            if not node_signals.wait_down(cluster, number, STOP_GRACE_S):
                node_signals.signal_node(cluster, number, signal.SIGKILL, group=True)
                node_signals.wait_down(cluster, number, KILL_WAIT_S)
        cluster.close_sessions()  # the driver's pool still names the node
        ring_of(cluster).forget(number)


DECOMMISSION = DecommissionOperation()
