"""Benchmark: local cluster start-up, where its time goes, and what class-data sharing
buys. Targets (issue 39, jars cached, 512M heaps): 1 node ready in at most 10 s and 3 nodes
in at most 20 s (medians); reset under 5 s.

Each round starts a 1-node and a 3-node cluster with the nodes' class-data sharing archive
(casslab's default) and without it (``CASSLAB_CLASS_SHARING=0``), in a random order per
round, and times from ``LocalCluster.create`` to ready, split by the nodes' own log lines:

  casslab before spawn   checks, files, until the first JVM is spawned
  JVM to first log line  JVM start, logging set up
  node init              configuration read -> "Starting up server gossip"
  gossip to CQL          gossip started -> "Starting listening for CQL clients" (the last node)
  ring check             the last node listening -> every node sees every node UP/NORMAL

    .venv/bin/python bench/cluster_startup.py [--rounds 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from casslab.cluster import ClusterSpec, LocalCluster, class_share, distribution
from casslab.cluster.local import launch

TARGETS_S = {1: 10.0, 3: 20.0}
RESET_TARGET_S = 5.0
_TIME = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})")
STAGES = (
    "casslab before spawn",
    "JVM to first log line",
    "node init",
    "gossip to CQL",
    "ring check",
)


def _log_time(log: Path, needle: str | None) -> float | None:
    """The epoch time of the first line of ``log`` holding ``needle`` (any line: None)."""
    for line in log.read_text(errors="replace").splitlines():
        if needle is None or needle in line:
            found = _TIME.search(line)
            if found:
                return datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
    return None


@contextmanager
def _sharing(on: bool) -> Iterator[None]:
    old = os.environ.get(class_share.ENV)
    os.environ[class_share.ENV] = "1" if on else "0"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(class_share.ENV, None)
        else:
            os.environ[class_share.ENV] = old


def measure(nodes: int, root: Path, shared: bool) -> tuple[float, dict[str, float], float]:
    """(seconds to ready, seconds per stage, seconds of a reset) of one new cluster."""
    spawned: list[float] = []
    original = launch.spawn

    def spawn(*args: object, **kwargs: object) -> tuple[int, float | None]:
        spawned.append(time.time())
        return original(*args, **kwargs)  # type: ignore[arg-type]

    base, jmx = ("127.0.110.1", 7700) if nodes == 1 else ("127.0.111.1", 7710)
    spec = ClusterSpec(
        name=f"bench{nodes}", nodes=nodes, heap="512M", base_address=base, jmx_port_base=jmx
    )
    launch.spawn = spawn
    try:
        with _sharing(shared):
            began = time.time()
            with LocalCluster.create(spec, root, remove_on_exit=True) as cluster:
                ready = time.time()
                logs = [node.log_file for node in cluster.nodes]
                first_log = min(t for log in logs if (t := _log_time(log, None)) is not None)
                gossip = max(
                    t for log in logs if (t := _log_time(log, "Starting up server gossip"))
                )
                cql = max(t for log in logs if (t := _log_time(log, launch.CQL_READY_LINE)))
                stages = {
                    "casslab before spawn": spawned[0] - began,
                    "JVM to first log line": first_log - spawned[0],
                    "node init": gossip - first_log,
                    "gossip to CQL": cql - gossip,
                    "ring check": ready - cql,
                }
                _fill(cluster)
                start = time.monotonic()
                cluster.reset()
                reset_s = time.monotonic() - start
    finally:
        launch.spawn = original
    return ready - began, stages, reset_s


def _fill(cluster: LocalCluster) -> None:
    session = cluster.session()
    session.execute(
        "CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', "
        "'replication_factor': 1}"
    )
    session.execute("CREATE TABLE bench.kv (k int PRIMARY KEY, v text)")
    insert = session.prepare("INSERT INTO bench.kv (k, v) VALUES (?, ?)")
    for k in range(2000):
        session.execute(insert, (k, "x" * 100))
    cluster.nodetool(1, "flush")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    distribution.fetch(distribution.DEFAULT_VERSION)  # jars cached before timing
    order = random.Random(args.seed)
    ready: dict[tuple[int, bool], list[float]] = {}
    stages: dict[tuple[int, bool], list[dict[str, float]]] = {}
    resets: list[float] = []
    with tempfile.TemporaryDirectory(prefix="casslab-bench-") as tmp:
        # one start of each size first: builds the archives if this machine has none yet
        for nodes in (1, 3):
            measure(nodes, Path(tmp), True)
        for round_number in range(1, args.rounds + 1):
            cases = [(n, s) for n in (1, 3) for s in (True, False)]
            order.shuffle(cases)
            for nodes, shared in cases:
                took, split, reset_s = measure(nodes, Path(tmp), shared)
                ready.setdefault((nodes, shared), []).append(took)
                stages.setdefault((nodes, shared), []).append(split)
                resets.append(reset_s)
                sharing = "with class sharing" if shared else "without"
                print(f"round {round_number}: {nodes} node(s) {sharing}: ready in {took:.1f} s")
    failed = False
    for (nodes, shared), values in sorted(ready.items()):
        median = statistics.median(values)
        sharing = "class sharing" if shared else "no sharing   "
        line = f"{nodes} node(s), {sharing}: median {median:5.1f} s (n={len(values)})"
        if shared:
            target = TARGETS_S[nodes]
            ok = median <= target
            failed |= not ok
            line += f"  target <= {target:.0f} s: {'ok' if ok else 'MISSED'}"
        print(line)
        for stage in STAGES:
            part = statistics.median(split[stage] for split in stages[(nodes, shared)])
            print(f"    {stage:24s} {part:5.1f} s")
    for nodes in (1, 3):
        with_it = statistics.median(ready[(nodes, True)])
        without = statistics.median(ready[(nodes, False)])
        print(f"{nodes} node(s): without / with class sharing = {without / with_it:.2f}x")
    worst_reset = max(resets)
    print(f"reset: worst {worst_reset:.1f} s (target < {RESET_TARGET_S:.0f} s)")
    failed |= worst_reset >= RESET_TARGET_S
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
