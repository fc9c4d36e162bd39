"""Benchmark: local cluster start-up and reset (targets: 1 node <= 15 s, 3 nodes <= 60 s,
reset < 5 s, jars already cached). Prints one line per measurement and a verdict.

    .venv/bin/python bench/cluster_startup.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from casslab.cluster import ClusterSpec, LocalCluster, distribution

TARGETS_S = {"up 1 node": 15.0, "up 3 nodes": 60.0, "reset": 5.0}


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


def measure(nodes: int, root: Path, base: str, jmx: int) -> tuple[float, float]:
    spec = ClusterSpec(
        name=f"bench{nodes}", nodes=nodes, heap="512M", base_address=base, jmx_port_base=jmx
    )
    start = time.monotonic()
    with LocalCluster.create(spec, root, remove_on_exit=True) as cluster:
        up_s = time.monotonic() - start
        _fill(cluster)
        start = time.monotonic()
        cluster.reset()
        reset_s = time.monotonic() - start
    return up_s, reset_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    distribution.fetch(distribution.DEFAULT_VERSION)  # jars cached before timing
    results: dict[str, list[float]] = {k: [] for k in TARGETS_S}
    with tempfile.TemporaryDirectory(prefix="casslab-bench-") as tmp:
        for _ in range(args.repeat):
            up1, reset1 = measure(1, Path(tmp), "127.0.110.1", 7700)
            up3, reset3 = measure(3, Path(tmp), "127.0.111.1", 7710)
            results["up 1 node"].append(up1)
            results["up 3 nodes"].append(up3)
            results["reset"] += [reset1, reset3]
    failed = False
    for name, values in results.items():
        target = TARGETS_S[name]
        worst = max(values)
        ok = worst <= target
        failed |= not ok
        print(
            f"{name:12s} median {statistics.median(values):6.1f} s  worst {worst:6.1f} s  "
            f"target <= {target:.0f} s  ratio worst/target {worst / target:.2f}  "
            f"{'ok' if ok else 'MISSED'}  (n={len(values)})"
        )
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
