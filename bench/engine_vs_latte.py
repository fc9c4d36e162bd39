"""casslab's load engine against latte on the same local node: client CPU and throughput.

For a write and a 90/10 mixed workload of ``--ops`` operations at ``--concurrency``
requests in flight, runs (each under ``/usr/bin/time``, so start-up costs count):

* ``casslab stress ...`` as a user types it (Python CLI + engine),
* ``casslab-engine --spec ...`` alone, on the spec ``casslab stress`` builds from the same
  command line (:func:`engine_spec`: ``parse_stress(...).to_spec(...)``),
* ``latte run ...`` with an equivalent rune workload (install: ``cargo install latte-cli``).

and prints ops per client CPU-second, op rate and peak RSS of each, plus the ratios
casslab/latte. Results go to ``--out``/results.json. Needs a node: ``--node HOST``
(native port 9042), or none to start a one-node cluster on ``--base-address``.

    .venv/bin/python bench/engine_vs_latte.py --ops 300000 --concurrency 128
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from casslab.cluster import LocalCluster, cluster_spec
from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.load import engine
from casslab.load.stress import parse_stress

TIME_FORMAT = "BENCH-TIME %e %U %S %M"


class Measurement(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str
    workload: str
    ops: int
    wall_s: float
    cpu_s: float
    max_rss_mib: float
    op_rate: float | None

    @property
    def ops_per_cpu_s(self) -> float:
        return self.ops / self.cpu_s if self.cpu_s > 0 else 0.0


def timed(name: str, workload: str, ops: int, cmd: list[str], cwd: Path) -> Measurement:
    """Run ``cmd`` under /usr/bin/time; fail loudly with its output on a non-zero exit."""
    proc = subprocess.run(
        ["/usr/bin/time", "-f", TIME_FORMAT, *cmd],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    (cwd / f"{name}-{workload}.out").write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
    if proc.returncode != 0:
        raise SystemExit(f"{name} {workload} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    match = re.search(r"BENCH-TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)", proc.stderr)
    if match is None:
        raise SystemExit(f"no /usr/bin/time line in the output of {cmd}")
    wall, user, system, rss_kb = match.groups()
    return Measurement(
        tool=name,
        workload=workload,
        ops=ops,
        wall_s=float(wall),
        cpu_s=float(user) + float(system),
        max_rss_mib=int(rss_kb) / 1024,
        op_rate=op_rate(name, proc.stdout),
    )


def op_rate(tool: str, stdout: str) -> float | None:
    if tool == "latte":
        m = re.search(r"Throughput\s+\[op/s\]\s+([\d.,]+)", stdout)
    elif tool == "casslab-stress":
        m = re.search(r"Op rate\s*:\s*([\d,.]+) op/s", stdout)
    else:
        summary = [json.loads(x) for x in stdout.splitlines() if '"type":"summary"' in x]
        return float(summary[-1]["total"]["op_rate"]) if summary else None
    return float(m.group(1).replace(",", "")) if m else None


# ---------------------------------------------------------------- the three tools


def stress_args(node: str, workload: str, ops: int, concurrency: int) -> list[str]:
    """The ``casslab stress`` command line (after ``stress``) of one workload."""
    if workload == "write":
        command = ["write", f"n={ops}", "cl=ONE"]
    else:
        command = ["mixed", "ratio(write=9,read=1)", f"n={ops}", "cl=ONE"]
        command += ["-pop", f"dist=UNIFORM(1..{ops})"]
    return [*command, "-rate", f"threads={concurrency}", "-node", node]


def engine_spec(node: str, workload: str, ops: int, concurrency: int) -> WorkloadSpec:
    """The spec ``casslab stress`` runs for :func:`stress_args` (same parser, same defaults,
    seed 0), so the engine-alone and the whole-command rows run one workload."""
    command = parse_stress(stress_args(node, workload, ops, concurrency))
    return command.to_spec(Connection(contact_points=command.contact_points([])), seed=0)


LATTE_SCRIPT = """
const ROWS = latte::param!("rows", 100000);
const KEYSPACE = "latte";

pub async fn schema(db) {
    db.execute(`CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH REPLICATION = \\
        { 'class' : 'SimpleStrategy', 'replication_factor' : 1 }`).await?;
    db.execute(`CREATE TABLE IF NOT EXISTS ${KEYSPACE}.standard1 (key blob PRIMARY KEY, \\
        "C0" blob, "C1" blob, "C2" blob, "C3" blob, "C4" blob)`).await?;
}

pub async fn erase(db) {
    db.execute(`TRUNCATE TABLE ${KEYSPACE}.standard1`).await
}

pub async fn prepare(db) {
    db.prepare("write", `INSERT INTO ${KEYSPACE}.standard1 (key, "C0", "C1", "C2", "C3", "C4") \\
        VALUES (:key, :c0, :c1, :c2, :c3, :c4)`).await?;
    db.prepare("read", `SELECT "C0", "C1", "C2", "C3", "C4" FROM ${KEYSPACE}.standard1 \\
        WHERE key = :key`).await?;
}

pub async fn load(db, i) {
}

pub async fn write(db, i) {
    let k = i % ROWS;
    db.execute_prepared("write", [latte::blob(k, 10), latte::blob(k + 1, 34),
        latte::blob(k + 2, 34), latte::blob(k + 3, 34), latte::blob(k + 4, 34),
        latte::blob(k + 5, 34)]).await?
}

pub async fn mixed(db, i) {
    let k = latte::hash(i) % ROWS;
    if latte::hash2(i, 7) % 10 == 0 {
        db.execute_prepared("read", [latte::blob(k, 10)]).await?
    } else {
        db.execute_prepared("write", [latte::blob(k, 10), latte::blob(k + 1, 34),
            latte::blob(k + 2, 34), latte::blob(k + 3, 34), latte::blob(k + 4, 34),
            latte::blob(k + 5, 34)]).await?
    }
}
"""


def commands(
    node: str,
    workload: str,
    ops: int,
    concurrency: int,
    latte: str | None,
    out: Path,
    runtime_threads: int,
) -> dict[str, list[str]]:
    """The command line of each tool for one workload, as a user would type it."""
    casslab = str(Path(sys.executable).parent / "casslab")
    spec_path = out / f"engine-{workload}.json"
    spec_path.write_text(engine_spec(node, workload, ops, concurrency).model_dump_json())
    result = {
        "casslab-engine": [
            str(engine.engine_binary()),
            "--spec",
            str(spec_path),
            "--runtime-threads",
            str(runtime_threads),
        ],
        "casslab-stress": [casslab, "stress", *stress_args(node, workload, ops, concurrency)],
    }
    if latte is not None:
        result["latte"] = [
            latte,
            "run",
            str(out / "standard1.rn"),
            "-f",
            workload,
            "-d",
            str(ops),
            "-p",
            str(concurrency),
            "-t",
            str(runtime_threads),
            "-q",
            "-P",
            f"rows={ops}",
            "-o",
            str(out / f"latte-{workload}.json"),
            node,
        ]
    return result


def run_all(
    node: str,
    ops: int,
    concurrency: int,
    latte: str | None,
    out: Path,
    runtime_threads: int,
    rounds: int = 3,
) -> list[Measurement]:
    """A discarded warm-up run (the node's JIT), then ``rounds`` rounds of every tool on
    every workload, the tools' order rotated each round so none always meets a colder or
    fuller node."""
    (out / "standard1.rn").write_text(LATTE_SCRIPT)
    if latte is not None:
        subprocess.run(
            [latte, "schema", str(out / "standard1.rn"), node], cwd=out, check=True, timeout=300
        )
    write = commands(node, "write", ops, concurrency, latte, out, runtime_threads)
    timed("warm-up", "write", ops, write["casslab-engine"], out)
    return run_rounds(
        lambda workload: commands(node, workload, ops, concurrency, latte, out, runtime_threads),
        ops,
        out,
        rounds,
    )


def run_rounds(
    commands_of: Callable[[str], dict[str, list[str]]], ops: int, out: Path, rounds: int
) -> list[Measurement]:
    """``rounds`` rounds of every tool (the keys of ``commands_of(workload)``) on the write
    then the mixed workload, the tools' order rotated by one each round."""
    results: list[Measurement] = []
    for round_number in range(rounds):
        for workload in ("write", "mixed"):
            cmds = commands_of(workload)
            tools = list(cmds)
            shift = round_number % len(tools)
            for tool in tools[shift:] + tools[:shift]:
                results.append(timed(tool, workload, ops, cmds[tool], out))
    return results


def _median(values: list[float]) -> float:
    return statistics.median(values)


def report(results: list[Measurement]) -> str:
    lines = [
        f"{'tool':16} {'workload':8} {'ops':>8} {'wall s':>7} {'cpu s':>7} "
        f"{'ops/cpu-s':>10} {'op/s':>9} {'rss MiB':>8}"
    ]
    for m in results:
        rate = f"{m.op_rate:9.0f}" if m.op_rate is not None else f"{'?':>9}"
        lines.append(
            f"{m.tool:16} {m.workload:8} {m.ops:8d} {m.wall_s:7.2f} {m.cpu_s:7.2f} "
            f"{m.ops_per_cpu_s:10.0f} {rate} {m.max_rss_mib:8.1f}"
        )
    groups: dict[tuple[str, str], list[Measurement]] = {}
    for m in results:
        groups.setdefault((m.tool, m.workload), []).append(m)
    lines.append("medians over rounds, ratios to latte (higher is better):")
    for workload in ("write", "mixed"):
        peer = groups.get(("latte", workload))
        if not peer:
            continue
        peer_cpu = _median([m.ops_per_cpu_s for m in peer])
        peer_rate = _median([m.op_rate for m in peer if m.op_rate])
        for tool in ("casslab-engine", "casslab-stress"):
            ours = groups[(tool, workload)]
            cpu = _median([m.ops_per_cpu_s for m in ours]) / peer_cpu
            rates = [m.op_rate for m in ours if m.op_rate]
            rate_ratio = _median(rates) / peer_rate if rates else float("nan")
            rss = max(m.max_rss_mib for m in ours)
            lines.append(
                f"{workload}: {tool}/latte ops per CPU-second = {cpu:.2f}, op rate = "
                f"{rate_ratio:.2f} (n={len(ours)}; peak RSS {rss:.1f} MiB)"
            )
    return "\n".join(lines)


@contextmanager
def node_address(args: argparse.Namespace) -> Iterator[str]:
    if args.node:
        yield args.node
        return
    spec = cluster_spec(
        name="bench-latte",
        nodes=1,
        heap=args.heap,
        base_address=args.base_address,
        jmx_port_base=args.jmx_port_base,
    )
    root = Path(tempfile.mkdtemp(prefix="casslab-bench-"))
    try:
        with LocalCluster.create(spec, root, remove_on_exit=True) as cluster:
            yield cluster.nodes[0].address
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--ops", type=int, default=300_000)
    p.add_argument("--concurrency", type=int, default=128)
    p.add_argument("--runtime-threads", type=int, default=1, help="engine and latte -t")
    p.add_argument("--rounds", type=int, default=3, help="rounds, tool order rotated")
    p.add_argument("--latte", default=shutil.which("latte"), help="latte binary (or skip it)")
    p.add_argument("--node", help="address of a running node (native port 9042)")
    p.add_argument("--base-address", default="127.0.10.1")
    p.add_argument("--jmx-port-base", type=int, default=7100)
    p.add_argument("--heap", default="1G")
    p.add_argument("--out", type=Path, default=Path("bench-results/engine_vs_latte"))
    args = p.parse_args()
    args.latte = args.latte or None  # --latte "" skips it
    if args.latte and "/" in args.latte:
        args.latte = str(Path(args.latte).resolve())  # the runs change directory
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out.resolve()
    with node_address(args) as node:
        results = run_all(
            node, args.ops, args.concurrency, args.latte, out, args.runtime_threads, args.rounds
        )
    (out / "results.json").write_text(
        json.dumps([m.model_dump() | {"ops_per_cpu_s": m.ops_per_cpu_s} for m in results], indent=2)
    )
    print(report(results))  # a benchmark script, not library code: it prints its table


if __name__ == "__main__":
    main()
