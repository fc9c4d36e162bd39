"""A cassandra-stress user profile with collections, a UDT and a timeuuid clustering key:
casslab's load engine against latte running the same schema, client CPU and throughput.

The table (bench/profile_types.yaml; latte: bench/latte/profile_types.rn) has a bigint
partition key, a timeuuid clustering key, a ``list<text>``, a ``set<int>``, a
``map<text, int>``, a frozen UDT (created by the profile's ``extra_definitions``) and a
text column, one row per partition. For an insert-only (``write``: sequential keys) and a
90/10 insert/read-one-partition (``mixed``: uniform keys) workload of ``--ops`` operations
at ``--concurrency`` requests in flight, it runs, each under ``/usr/bin/time``:

* ``casslab stress user profile=... ops(...)`` as a user types it (Python CLI + engine),
* ``casslab-engine --spec ...`` alone, on the spec that command line builds,
* ``latte run profile_types.rn -f write|mixed`` (latte-cli 0.29.0, ``make bench``
  builds it into .bench-tools/),

all three under ``nice -n 10`` (the box's two cores are shared), one runtime thread each,
and prints ops per client CPU-second, op rate and peak RSS of each, and the ratios
casslab/latte (medians over ``--rounds``, the tools' order rotated each round; the
helpers are bench/engine_vs_latte.py's). casslab's reads check every column of the row
they read (collections and UDT included); latte's do not. Needs a node: ``--node HOST``,
or none to start a one-node cluster (512 MiB heap) on ``--base-address``.

    flock /tmp/casslab-nodes.lock .venv/bin/python bench/profile_vs_latte.py \\
        --ops 100000 --latte .bench-tools/bin/latte

Figures (2026-11-28, 2-core box shared with other work, one Cassandra 5.0.9 node, 512 MiB
heap, latte 0.29.0), ``flock /tmp/casslab-nodes.lock .venv/bin/python
bench/profile_vs_latte.py --ops 100000 --rounds 3 --latte .bench-tools/bin/latte``,
0 errors and 0 read mismatches in every run::

    tool             workload      ops  wall s   cpu s  ops/cpu-s      op/s  rss MiB
    casslab-engine   write      100000   10.09    1.58      63291      9952     12.3
    casslab-stress   write      100000   11.24    2.76      36232     10255     46.1
    latte            write      100000   10.04    3.01      33223     10338     27.9
    casslab-engine   mixed      100000   15.75    1.91      52356      6389     14.0
    casslab-stress   mixed      100000   14.01    2.65      37736      7829     45.9
    latte            mixed      100000   14.55    3.23      30960      7118     30.1
    casslab-stress   write      100000    8.63    2.37      42194     13309     45.8
    latte            write      100000   10.89    3.57      28011      9548     28.0
    casslab-engine   write      100000    9.06    1.49      67114     11151     12.3
    casslab-stress   mixed      100000   11.81    2.65      37736      9574     45.9
    latte            mixed      100000    9.29    2.72      36765     11141     27.2
    casslab-engine   mixed      100000    7.18    1.28      78125     14019     13.9
    latte            write      100000    8.09    2.97      33670     12706     26.5
    casslab-engine   write      100000    8.03    1.47      68027     12549     12.3
    casslab-stress   write      100000    7.26    2.49      40161     17614     45.9
    latte            mixed      100000    9.94    3.20      31250     10317     27.7
    casslab-engine   mixed      100000    8.05    1.54      64935     12465     13.8
    casslab-stress   mixed      100000    8.33    2.31      43290     13851     46.1
    medians over rounds, ratios to latte (higher is better):
    write: casslab-engine/latte ops per CPU-second = 2.02, op rate = 1.08 (n=3; peak RSS 12.3 MiB)
    write: casslab-stress/latte ops per CPU-second = 1.21, op rate = 1.29 (n=3; peak RSS 46.1 MiB)
    mixed: casslab-engine/latte ops per CPU-second = 2.08, op rate = 1.21 (n=3; peak RSS 14.0 MiB)
    mixed: casslab-stress/latte ops per CPU-second = 1.21, op rate = 0.93 (n=3; peak RSS 46.1 MiB)

The engine clears the 1.5x target; the whole command does not at 100k operations: its
extra ~1 s of CPU over the engine alone is the Python CLI's start-up on the loaded box
(``casslab --help`` alone took 1.4 s CPU then), a fixed cost that weighs less as runs grow.
One round at ``--ops 300000 --rounds 1`` the same day: whole command 2.02x latte (insert)
and 1.75x (90/10), engine alone 2.88x and 1.79x; latte 31-32 k ops per CPU-second.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.load import engine
from casslab.load.stress import parse_stress
from engine_vs_latte import Measurement, node_address, report, run_rounds, timed

BENCH = Path(__file__).resolve().parent
PROFILE = BENCH / "profile_types.yaml"
LATTE_SCRIPT = BENCH / "latte" / "profile_types.rn"


def stress_args(node: str, workload: str, ops: int, concurrency: int) -> list[str]:
    """The ``casslab stress`` command line (after ``stress``) of one workload."""
    if workload == "write":
        command = ["ops(insert=1)", f"n={ops}", "cl=ONE", "-pop", f"seq=1..{ops}"]
    else:
        command = ["ops(insert=9,partition=1)", f"n={ops}", "cl=ONE"]
        command += ["-pop", f"dist=UNIFORM(1..{ops})"]
    rate = ["-rate", f"threads={concurrency}"]
    return ["user", f"profile={PROFILE}", *command, *rate, "-node", node]


def engine_spec(node: str, workload: str, ops: int, concurrency: int) -> WorkloadSpec:
    """The spec ``casslab stress`` runs for :func:`stress_args` (seed 0)."""
    command = parse_stress(stress_args(node, workload, ops, concurrency))
    return command.to_spec(Connection(contact_points=command.contact_points([])), seed=0)


def commands(
    node: str, workload: str, ops: int, concurrency: int, latte: str | None, out: Path
) -> dict[str, list[str]]:
    """The command line of each tool for one workload, each under ``nice -n 10`` (the box's
    two cores are shared) and on one runtime thread."""
    spec_path = out / f"engine-{workload}.json"
    spec_path.write_text(engine_spec(node, workload, ops, concurrency).model_dump_json())
    casslab = str(Path(sys.executable).parent / "casslab")
    engine_binary = str(engine.engine_binary())
    result = {
        "casslab-engine": [engine_binary, "--spec", str(spec_path), "--runtime-threads", "1"],
        "casslab-stress": [casslab, "stress", *stress_args(node, workload, ops, concurrency)],
    }
    if latte is not None:
        result["latte"] = [latte, "run", str(LATTE_SCRIPT), "-f", workload, "-d", str(ops)]
        result["latte"] += ["-p", str(concurrency), "-t", "1", "-q", "-P", f"rows={ops}"]
        result["latte"] += ["-o", str(out / f"latte-{workload}.json"), node]
    return {tool: ["nice", "-n", "10", *cmd] for tool, cmd in result.items()}


def run_all(
    node: str, ops: int, concurrency: int, latte: str | None, out: Path, rounds: int
) -> list[Measurement]:
    """latte's schema, a discarded warm-up run of each tool (the node's JIT, casslab's
    schema), then ``rounds`` rounds of every tool on both workloads."""
    if latte is not None:
        subprocess.run([latte, "schema", str(LATTE_SCRIPT), node], cwd=out, check=True, timeout=300)
    for tool, cmd in commands(node, "write", ops, concurrency, latte, out).items():
        timed(f"warm-up-{tool}", "write", ops, cmd, out)
    return run_rounds(
        lambda workload: commands(node, workload, ops, concurrency, latte, out), ops, out, rounds
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--ops", type=int, default=300_000)
    p.add_argument("--concurrency", type=int, default=128)
    p.add_argument("--rounds", type=int, default=3, help="rounds, tool order rotated")
    p.add_argument("--latte", default=shutil.which("latte"), help="latte binary (or skip it)")
    p.add_argument("--node", help="address of a running node (native port 9042)")
    p.add_argument("--base-address", default="127.0.10.1")
    p.add_argument("--jmx-port-base", type=int, default=7100)
    p.add_argument("--heap", default="512M")
    p.add_argument("--out", type=Path, default=Path("bench-results/profile_vs_latte"))
    args = p.parse_args()
    latte = str(Path(args.latte).resolve()) if args.latte else None  # the runs change directory
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out.resolve()
    with node_address(args) as node:
        results = run_all(node, args.ops, args.concurrency, latte, out, args.rounds)
    (out / "results.json").write_text(
        json.dumps([m.model_dump() | {"ops_per_cpu_s": m.ops_per_cpu_s} for m in results], indent=2)
    )
    print(report(results))  # a benchmark script, not library code: it prints its table


if __name__ == "__main__":
    main()
