"""Benchmark: local cluster start-up, where its time goes, and what casslab's start-up
caches buy. Targets (issue 39, jars cached, 512M heaps): 1 node ready in at most 10 s and 3
nodes in at most 20 s (medians); reset under 5 s.

Each round starts a 1-node and a 3-node cluster in three variants, in a random order per
round: ``casslab`` (the default: the nodes' class-data sharing archive, and the memtable
row overhead a node of the same kind computed before, :mod:`casslab.cluster.row_overhead`),
``no row overhead`` (``CASSLAB_ROW_OVERHEAD=0``: every node computes it) and ``stock``
(neither: ``CASSLAB_CLASS_SHARING=0`` too). It times from ``LocalCluster.create`` to
ready, split by the nodes' own log lines:

  casslab before spawn   checks, files, until the first JVM is spawned
  JVM to first log line  JVM start, logging set up
  node init              configuration read -> "Starting up server gossip"
  gossip to CQL          gossip started -> "Starting listening for CQL clients" (the last node)
  ring check             the last node listening -> every node sees every node UP/NORMAL

    .venv/bin/python bench/cluster_startup.py [--rounds 3] [--seed 1]

Measured 2026-11-28 (5.0.9, JDK 17, 2 cores shared with other work, load 5-7), medians of 3:

    variant            1 node   3 nodes   node init (3 nodes)
    casslab             4.1 s    17.5 s     9.2 s
    no row overhead     5.6 s    21.6 s    13.0 s
    stock               7.5 s    25.1 s    16.9 s
    reset: worst 3.4 s
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

from casslab.cluster import LocalCluster, class_share, cluster_spec, distribution, row_overhead
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


CASSLAB = "casslab"
VARIANTS: dict[str, dict[str, str]] = {
    CASSLAB: {class_share.ENV: "1", row_overhead.ENV: "1"},
    "no row overhead": {class_share.ENV: "1", row_overhead.ENV: "0"},
    "stock": {class_share.ENV: "0", row_overhead.ENV: "0"},
}


@contextmanager
def _variant(name: str) -> Iterator[None]:
    old = {key: os.environ.get(key) for key in VARIANTS[name]}
    os.environ.update(VARIANTS[name])
    try:
        yield
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def measure(nodes: int, root: Path, variant: str) -> tuple[float, dict[str, float], float]:
    """(seconds to ready, seconds per stage, seconds of a reset) of one new cluster."""
    spawned: list[float] = []
    original = launch.spawn

    def spawn(*args: object, **kwargs: object) -> tuple[int, float | None]:
        spawned.append(time.time())
        return original(*args, **kwargs)  # type: ignore[arg-type]

    base, jmx = ("127.0.110.1", 7700) if nodes == 1 else ("127.0.111.1", 7710)
    spec = cluster_spec(
        name=f"bench{nodes}", nodes=nodes, heap="512M", base_address=base, jmx_port_base=jmx
    )
    launch.spawn = spawn
    try:
        with _variant(variant):
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
    ready: dict[tuple[int, str], list[float]] = {}
    stages: dict[tuple[int, str], list[dict[str, float]]] = {}
    resets: list[float] = []
    with tempfile.TemporaryDirectory(prefix="casslab-bench-") as tmp:
        # one start of each size first: builds the archives and keeps the row overhead if
        # this machine has neither yet
        for nodes in (1, 3):
            measure(nodes, Path(tmp), CASSLAB)
        for round_number in range(1, args.rounds + 1):
            cases = [(n, v) for n in (1, 3) for v in VARIANTS]
            order.shuffle(cases)
            for nodes, variant in cases:
                took, split, reset_s = measure(nodes, Path(tmp), variant)
                ready.setdefault((nodes, variant), []).append(took)
                stages.setdefault((nodes, variant), []).append(split)
                resets.append(reset_s)
                print(f"round {round_number}: {nodes} node(s) {variant}: ready in {took:.1f} s")
    failed = False
    for (nodes, variant), values in sorted(ready.items()):
        median = statistics.median(values)
        line = f"{nodes} node(s), {variant:15s}: median {median:5.1f} s (n={len(values)})"
        if variant == CASSLAB:
            target = TARGETS_S[nodes]
            ok = median <= target
            failed |= not ok
            line += f"  target <= {target:.0f} s: {'ok' if ok else 'MISSED'}"
        print(line)
        for stage in STAGES:
            part = statistics.median(split[stage] for split in stages[(nodes, variant)])
            print(f"    {stage:24s} {part:5.1f} s")
    for nodes in (1, 3):
        ours = statistics.median(ready[(nodes, CASSLAB)])
        for variant in VARIANTS:
            if variant != CASSLAB:
                other = statistics.median(ready[(nodes, variant)])
                print(f"{nodes} node(s): {variant} / casslab = {other / ours:.2f}x")
    worst_reset = max(resets)
    print(f"reset: worst {worst_reset:.1f} s (target < {RESET_TARGET_S:.0f} s)")
    failed |= worst_reset >= RESET_TARGET_S
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
