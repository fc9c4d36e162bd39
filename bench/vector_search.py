"""Vector search on one local node: casslab's engine against a plain Python driver loop.

NoSQLBench (a Java distribution from GitHub releases) and latte's vector workload (an
open pull request, not in the released crate) cannot be installed from the package
registries here, so the reference is the simplest client a user would write: the
cassandra-driver executing the same prepared ``SELECT id ... ORDER BY embedding ANN OF ?
LIMIT k`` with ``--concurrency`` requests in flight (``execute_concurrent``), recall
computed in Python (:func:`casslab.load.vectors.recall.recall_at_k`) from the same
ground truth. Both search the same data on the same node, one after the other, for
``--rounds`` rounds in rotated order; printed: QPS, p50/p99 and mean/p5 recall@k.

``--baseline CHECKOUT`` adds another casslab as a third client: a checkout of an earlier
commit (``git worktree add DIR COMMIT``) with its engine built (``cargo build --release``
there), whose ``casslab stress`` runs from its ``src/`` with its own engine, the same
command as casslab's. The rounds pair the two, and the paired geometric mean of the QPS
and p99 ratios (this casslab / the baseline, 95 % interval,
:func:`casslab.analysis.paired_ratio.paired_ratio`) says whether a change costs a search
anything.

Measured 2026-11-28 against the commit before search while loading (5e6049a~1; one node,
8 in flight, 2,000 queries, 8 rounds, the machine otherwise idle): QPS casslab / baseline
0.989 [0.866, 1.129], p99 1.005 [0.857, 1.177] (paired geometric means, 95 %): no cost
to tell; both rose 3x over the rounds as the node warmed (807 -> 2,861 and 867 -> 2,509).

The catalog's vector profile is loaded first (``casslab stress ... ops(insert=1)``), then
flushed and compacted (the on-disk index is what a steady search reads). Needs a node:
``--node HOST`` (native port 9042), or none to start a one-node cluster.

    .venv/bin/python bench/vector_search.py --queries 2000 --concurrency 8

Measured 2026-11-28 (Cassandra 5.0.9, one node, 768M heap, 2 shared cores; 8 in flight):

    client              QPS   p50 ms   p99 ms  recall@10     p5
    casslab             393     17.7     56.6     0.9975   1.00   (round 1, first search)
    casslab            1002      7.2     20.5     0.9975   1.00   (round 2)
    python-driver       607     12.1     31.3     0.9975   1.00
    python-driver       585     12.1     31.5     0.9975   1.00

The engine's recall (counted in Rust from the result keys) and the driver loop's (Python,
from the rows) agree to the query: the same 2000 queries, the same 0.9975. The first
search after the compaction is slower whoever runs it (rounds rotate the order).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from cassandra.cluster import Cluster

from casslab.analysis.paired_ratio import paired_ratio
from casslab.cluster import LocalCluster, cluster_spec
from casslab.load.vectors.files import synthetic_files
from casslab.load.vectors.recall import recall_at_k
from casslab.load.vectors.texmex import read_fvecs, read_ivecs

PROFILE = Path(__file__).parents[1] / "src" / "casslab" / "workloads" / "catalog" / "vector.yaml"
CASSLAB = str(Path(sys.executable).parent / "casslab")
K = 10


def engine_of(checkout: Path) -> Path:
    """The engine a casslab checkout builds (``cargo build --release`` there)."""
    return checkout / "target" / "release" / "casslab-engine"


def casslab_search(
    node: str, queries: int, concurrency: int, checkout: Path | None = None
) -> dict[str, float]:
    """``casslab stress`` searching: this one, or the one of another ``checkout``."""
    casslab, env = [CASSLAB], None
    if checkout is not None:
        casslab = [sys.executable, "-m", "casslab"]
        env = {
            **os.environ,
            "PYTHONPATH": str(checkout / "src"),
            "CASSLAB_ENGINE": str(engine_of(checkout)),
        }
    done = subprocess.run(
        [*casslab, "stress", "user", f"profile={PROFILE}", "ops(ann=1)", f"n={queries}",
         "-rate", f"threads={concurrency}", "-node", node, "--json"],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    summary = [json.loads(x) for x in done.stdout.splitlines() if '"summary"' in x][-1]
    ann = summary["ops"]["ann"]
    return {
        "qps": ann["op_rate"],
        "p50_ms": ann["response"]["p50_ms"],
        "p99_ms": ann["response"]["p99_ms"],
        "recall_mean": ann["recall"]["mean"],
        "recall_p5": ann["recall"]["p5"],
    }


def driver_search(node: str, queries: int, concurrency: int) -> dict[str, float]:
    files = synthetic_files()
    vectors, truth = read_fvecs(files.queries), read_ivecs(files.ground_truth)
    cluster = Cluster([node], port=9042)
    session = cluster.connect()
    stmt = session.prepare(
        f"SELECT id FROM casslab_workloads.items ORDER BY embedding ANN OF ? LIMIT {K}"
    )
    latencies_ms = [0.0] * queries
    recalls = [0.0] * queries

    def worker(first: int) -> None:
        # a closed loop: `concurrency` threads, each one request at a time
        for i in range(first, queries, concurrency):
            q = i % len(vectors)
            t0 = time.perf_counter()
            rows = session.execute(stmt, ([float(x) for x in vectors[q]],))
            latencies_ms[i] = (time.perf_counter() - t0) * 1000
            found = [r.id - 1 for r in rows]  # key i + 1 is base row i
            recalls[i] = recall_at_k(found, [int(x) for x in truth[q]], K)

    try:
        start = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(worker, range(concurrency)))
        elapsed = time.perf_counter() - start
    finally:
        cluster.shutdown()
    return {
        "qps": queries / elapsed,
        "p50_ms": float(np.percentile(latencies_ms, 50)),
        "p99_ms": float(np.percentile(latencies_ms, 99)),
        "recall_mean": float(np.mean(recalls)),
        "recall_p5": float(np.percentile(recalls, 5, method="inverted_cdf")),
    }


Nodetool = Callable[..., str]


@contextmanager
def node_address(args: argparse.Namespace) -> Iterator[tuple[str, Nodetool | None]]:
    """A running node's address, or a one-node cluster's and its nodetool."""
    if args.node:
        yield args.node, None
        return
    spec = cluster_spec(
        name="bench-vector", nodes=1, heap=args.heap, base_address=args.base_address,
        jmx_port_base=args.jmx_port_base,
    )  # fmt: skip
    root = Path(tempfile.mkdtemp(prefix="casslab-bench-"))
    try:
        with LocalCluster.create(spec, root, remove_on_exit=True) as cluster:
            yield cluster.nodes[0].address, cluster.nodetool
    finally:
        shutil.rmtree(root, ignore_errors=True)


def load(node: str, nodetool: Nodetool) -> None:
    subprocess.run(
        [CASSLAB, "stress", "user", f"profile={PROFILE}", "ops(insert=1)", "n=20000",
         "-rate", "threads=16", "-node", node],
        capture_output=True, check=True,
    )  # fmt: skip
    nodetool(1, "flush", "casslab_workloads")
    nodetool(1, "compact", "casslab_workloads", timeout_s=600)


def round_order(names: list[str], r: int) -> list[str]:
    """Round ``r``'s order. Two clients take turns first. With a baseline, casslab and the
    baseline search back to back, each first in every other round, and the driver loop
    last: a rotation of three would always have casslab search right after the baseline
    (and never after the driver), so what one search leaves the node in (a first search
    is slower, the node warms over the rounds) would fall on one of the pair."""
    if "baseline" not in names:
        turn = r % len(names)
        return names[turn:] + names[:turn]
    pair = ["casslab", "baseline"] if r % 2 == 0 else ["baseline", "casslab"]
    return pair + [n for n in names if n not in pair]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--queries", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--node", help="address of a running node with the data loaded")
    p.add_argument("--base-address", default="127.0.11.1")
    p.add_argument("--jmx-port-base", type=int, default=7150)
    p.add_argument("--heap", default="768M")
    p.add_argument("--baseline", type=Path, help="another casslab checkout, its engine built")
    args = p.parse_args()
    if args.baseline is not None:
        built = engine_of(args.baseline)
        if not (args.baseline / "src" / "casslab").is_dir() or not os.access(built, os.X_OK):
            raise SystemExit(
                f"--baseline {args.baseline}: needs a casslab checkout with its engine built "
                f"({built}: run cargo build --release there)"
            )
    with node_address(args) as (node, nodetool):
        if nodetool is not None:
            load(node, nodetool)
        tools: dict[str, Callable[[str, int, int], dict[str, float]]] = {
            "casslab": casslab_search,
            "python-driver": driver_search,
        }
        if args.baseline is not None:
            baseline = args.baseline
            tools["baseline"] = lambda n, q, c: casslab_search(n, q, c, baseline)
        results: dict[str, list[dict[str, float]]] = {name: [] for name in tools}
        # the first search after the load's compaction is 3-5x slower whoever runs it
        # (its first round gave 250-440 QPS against 700-2,000 later): searched and
        # thrown away, so no client's first round pays it
        casslab_search(node, args.queries, args.concurrency)
        for r in range(args.rounds):
            for name in round_order(list(tools), r):
                results[name].append(tools[name](node, args.queries, args.concurrency))
    # a benchmark script, not library code: it prints its table
    print(f"{'client':<14} {'QPS':>8} {'p50 ms':>8} {'p99 ms':>8} {'recall@10':>10} {'p5':>6}")
    for name, runs in results.items():
        for m in runs:
            print(
                f"{name:<14} {m['qps']:>8.0f} {m['p50_ms']:>8.1f} {m['p99_ms']:>8.1f} "
                f"{m['recall_mean']:>10.4f} {m['recall_p5']:>6.2f}"
            )
    if "baseline" in results:
        for key, label in (("qps", "QPS casslab / baseline"), ("p99_ms", "p99 casslab / baseline")):
            b = [m[key] for m in results["baseline"]]
            a = [m[key] for m in results["casslab"]]
            print(paired_ratio(b, a).line(label))


if __name__ == "__main__":
    main()
