"""``kind: decommission``: node ``target`` streams its ranges to the nodes that take them
(``nodetool decommission``), leaves the ring, is stopped and leaves the cluster's record
(:func:`~casslab.cluster.capabilities.ring_of`). Refused before anything starts: a node
other than the last (casslab numbers a cluster's nodes 1 to N), the last node, a cluster
that would keep fewer nodes than a keyspace's replication factor (as Cassandra refuses
it, said before the load starts), and a cluster whose nodes casslab does not run.
Cassandra's own keyspaces (``system_distributed`` at RF 3, ``system_traces`` at 2,
whatever the cluster's size) do not stop it: they are the lab's defaults, not the user's
data, and ``nodetool decommission --force`` is asked when one of them is above the nodes
left. Steps: decommission (with the bytes it streamed, JMX), stop."""

from __future__ import annotations

import signal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from casslab.cluster.capabilities import last_node_problem, processes_of, ring_of
from casslab.errors import ConfigError
from casslab.faults import node_signals, streaming
from casslab.faults.kinds.stop.stop_fault import KILL_WAIT_S, STOP_GRACE_S
from casslab.faults.operation import OPERATION_TIMEOUT_S, NodeOperation, Stopwatch

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault

REPLICATION = "SELECT keyspace_name, replication FROM system_schema.keyspaces"


def replication_factors(rows: Iterable[Any], *, own: bool = False) -> dict[str, int]:
    """Each user keyspace's largest replication factor (of any datacenter), from rows of
    :data:`REPLICATION`; with ``own``, those of Cassandra's own keyspaces (``system*``)
    instead."""
    found: dict[str, int] = {}
    for row in rows:
        name = str(row.keyspace_name)
        if name.startswith("system") != own:
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
    reshapes_cluster: bool = True

    def nodes_after(self, numbers: tuple[int, ...], fault: Fault) -> tuple[int, ...]:
        number = int(fault.target)
        # the live checks' own rules, on the numbers the cluster will have by then
        problem = decommission_problem(number, len(numbers), {}) or last_node_problem(
            number, numbers, "the cluster by then"
        )
        if problem is not None:
            raise ConfigError(problem)
        return tuple(n for n in numbers if n != number)

    def check(self, cluster: Cluster, fault: Fault) -> None:
        processes_of(cluster)
        number = int(fault.target)
        ring_of(cluster).check_forget(number)  # before it streams, not after
        rows = cluster.session().execute(REPLICATION)
        problem = decommission_problem(number, len(cluster.nodes), replication_factors(rows))
        if problem is not None:
            raise ConfigError(f"decommission of cluster {cluster.name!r}: {problem}")

    def run(self, cluster: Cluster, fault: Fault, watch: Stopwatch) -> None:
        number = int(fault.target)
        self.check(cluster, fault)  # the ring may have changed since the timeline began
        # Cassandra's own keyspaces keep their replication factor whatever the cluster's
        # size (system_distributed: 3): Cassandra refuses to go below it unless forced
        own = replication_factors(cluster.session().execute(REPLICATION), own=True)
        force = ["--force"] if max(own.values(), default=0) > len(cluster.nodes) - 1 else []
        before = streaming.streamed(cluster, number)
        with watch.step(number, "decommission"):
            cluster.nodetool(number, "decommission", *force, timeout_s=OPERATION_TIMEOUT_S)
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
