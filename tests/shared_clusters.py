"""The real clusters test modules share (fixtures in conftest.py): their specs, per
pytest-xdist worker, and the emptying a module does around its use of one.

Worker k (0 without xdist) has its node on 127.0.6k.1 (JMX 7901+10k) and its three
nodes on 127.0.7k.1-3 (JMX 8001+10k...): no test module uses these blocks for a cluster
of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from casslab.cluster import ClusterSpec, LocalCluster, cluster_spec
from jit import C1_ONLY


def worker_index() -> int:
    """0 for the main process, k for pytest-xdist's worker gwk."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def shared_spec(kind: str) -> ClusterSpec:
    """``node``: one node; ``three``: three; plain processes, 512M heaps, stock settings.
    The three run at C1 (:mod:`jit`): their modules (tests/cluster/test_local_integration.py,
    tests/cli/test_stress_lwt_integration.py, test_stress_token_range_integration.py) check
    what the nodes answer, not how fast, and no measuring test uses them. The node keeps
    C2: the vector index's rebuild and the capacity search run on it."""
    k = worker_index()
    nodes, octet, jmx = {"node": (1, 60, 7900), "three": (3, 70, 8000)}[kind]
    return cluster_spec(
        name=f"shared-{kind}-w{k}",
        nodes=nodes,
        heap="512M",
        base_address=f"127.0.{octet + k}.1",
        jmx_port_base=jmx + 10 * k,
        jvm_options=(C1_ONLY,) if kind == "three" else (),
    )


SHARED_NODE = shared_spec("node").base_address
"""The shared node's address (this worker's), for command lines built at import."""


def emptied(cluster: LocalCluster) -> Iterator[LocalCluster]:
    """``cluster`` with no user keyspace and no snapshot, emptied again afterwards: the body
    of a module fixture, ``yield from emptied(shared_node)``."""
    cluster.reset()
    try:
        yield cluster
    finally:
        if all(cluster.node_alive(node) for node in cluster.nodes):
            cluster.reset()
