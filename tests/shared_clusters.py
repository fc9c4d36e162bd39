"""The real clusters test modules share (fixtures in conftest.py): their specs, per
pytest-xdist worker, and the emptying a module does around its use of one.

Worker k (0 without xdist) has its node on 127.0.6k.1 (JMX 7901+10k) and its three
nodes on 127.0.7k.1-3 (JMX 8001+10k...): no test module uses these blocks for a cluster
of its own.

Between two modules' uses a shared cluster's JVMs are stopped (SIGSTOP) and use no CPU;
the next use continues them (SIGCONT). A worker starts its three for the first module that
asks and keeps them to the session's end, though only three modules use them; its node
serves a module now and then. Idle, a node uses 1 to 3 CPU-s a minute (its clock,
gossip, metrics: :mod:`jit`), taken from the other worker's tests. A node resumes as
after a long GC pause: its failure detector convicts no peer for 5 s after a pause of its
own (Cassandra's ``cassandra.max_local_pause_in_ms``), and ignores the gap between two
heartbeats longer than 2 s; the three are continued together. A module ends with the
cluster's driver sessions closed (:meth:`LocalCluster.reset`), so no client waits on a
stopped node. The session's end stops the nodes as ever: a stop continues a stopped
group after its SIGTERM (:func:`casslab.procgroup.stop_group`).
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Iterator

from casslab.cluster import ClusterSpec, LocalCluster, cluster_spec
from casslab.faults import node_signals
from jit import COARSE_CLOCK, LIGHT


def worker_index() -> int:
    """0 for the main process, k for pytest-xdist's worker gwk."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def shared_spec(kind: str, *, measuring: bool = False) -> ClusterSpec:
    """``node``: one node; ``three``: three; plain processes, 512M heaps, stock settings.
    The three run light (:data:`jit.LIGHT`): their modules
    (tests/cluster/test_local_integration.py, tests/cli/test_stress_lwt_integration.py,
    test_stress_token_range_integration.py) check what the nodes answer, not how fast, and
    no measuring test uses them. The node keeps C2 (the vector index's rebuild and the
    capacity search run on it), with the coarse clock unless the session is ``measuring``
    (:func:`jit.session_measures`): then it runs as users run it."""
    k = worker_index()
    nodes, octet, jmx = {"node": (1, 60, 7900), "three": (3, 70, 8000)}[kind]
    options = {"node": () if measuring else (COARSE_CLOCK,), "three": LIGHT}[kind]
    return cluster_spec(
        name=f"shared-{kind}-w{k}",
        nodes=nodes,
        heap="512M",
        base_address=f"127.0.{octet + k}.1",
        jmx_port_base=jmx + 10 * k,
        jvm_options=options,
    )


SHARED_NODE = shared_spec("node").base_address
"""The shared node's address (this worker's), for command lines built at import."""


_USERS: Counter[str] = Counter()
"""How many :func:`emptied` blocks use each shared cluster now, by its name."""


def emptied(cluster: LocalCluster) -> Iterator[LocalCluster]:
    """``cluster`` running, with no user keyspace and no snapshot, emptied again afterwards
    and stopped (SIGSTOP) till its next use when no other block uses it: the body of a
    module fixture, ``yield from emptied(shared_node)``."""
    name = cluster.state.spec.name
    _USERS[name] += 1
    signal_nodes(cluster, signal.SIGCONT)
    try:
        cluster.reset()
        yield cluster
    finally:
        _USERS[name] -= 1
        if all(cluster.node_alive(node) for node in cluster.nodes):
            cluster.reset()
        if not _USERS[name]:
            signal_nodes(cluster, signal.SIGSTOP)


def signal_nodes(cluster: LocalCluster, sig: signal.Signals) -> None:
    """Send ``sig`` to each of ``cluster``'s JVMs that still runs (a node a test ended is
    left as it is)."""
    for node in cluster.nodes:
        if cluster.node_alive(node):
            node_signals.signal_node(cluster, node.number, sig, group=False)
