"""Benchmark: isolated nodes (issue 13).

1. Start-up of a 3-node isolated cluster (each node in its own network namespace and
   cgroup of half a core, 512M heap), jars cached: target at most 60 s. A plain 3-node
   local cluster is started in the same run as the baseline, and the ratio isolated/plain
   is printed.
2. The op-rate cost of isolation: one node as a plain process in a cgroup of ``--cpus``
   cores, and one node in its own network namespace with the same cgroup limits, driven
   by the same ``casslab stress`` command, both kinds once per round in a randomized order,
   after a discarded warm-up run on each (the JIT of a fresh node needs about two minutes
   of load: a 30 s warm-up left the op rate climbing from 15k to 29k op/s over the first
   three rounds). Prints each trial, then netns/process op rate paired by round (the
   geometric mean of each round's ratio, Student-t 95% CI: a drift common to both kinds
   cancels) and Fieller's CI of the ratio of the means, and says "not significant" when
   the paired CI holds 1.

    .venv/bin/python bench/isolation.py [--repeat 3] [--rounds 6] [--seconds 20] [--cpus 1]
                                        [--warmup 120] [--skip-startup]

Needs root (namespaces and cgroups). About 12 minutes with the defaults.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scipy.stats import t as t_dist

from casslab.analysis.inference import SampleSummary, fieller_ratio
from casslab.cluster import cluster_spec, create, distribution, parse_spec

STARTUP_TARGET_S = 60.0
_OP_RATE = re.compile(r"^Op rate\s*:\s*([\d,]+) op/s", re.MULTILINE)


def startup(root: Path, isolated: bool, index: int) -> float:
    fields: dict[str, object] = {"name": f"bench-up-{index}", "nodes": 3, "heap": "512M"}
    if isolated:
        fields |= {"isolation": "netns", "cpus": 0.5, "jmx_port_base": 9140}
    else:
        fields |= {"base_address": "127.0.233.1", "jmx_port_base": 9150}
    spec = parse_spec(fields)
    start = time.monotonic()
    with create(spec, root, remove_on_exit=True):
        return time.monotonic() - start


def stress(addresses: str, seconds: int) -> float:
    command = ["stress", "write", f"duration={seconds}s", "-rate", "threads=32"]
    out = subprocess.run(
        [sys.executable, "-m", "casslab", *command, "-node", addresses],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    match = _OP_RATE.search(out)
    if match is None:
        raise SystemExit(f"no op rate in the stress output:\n{out}")
    return float(match.group(1).replace(",", ""))


def summary(values: list[float]) -> SampleSummary:
    return SampleSummary(statistics.fmean(values), statistics.variance(values), len(values))


def paired_ratio(baseline: list[float], candidate: list[float]) -> tuple[float, float, float]:
    """Geometric mean of the per-round ratios candidate/baseline and its Student-t 95% CI."""
    logs = [math.log(c / b) for b, c in zip(baseline, candidate, strict=True)]
    mean = statistics.fmean(logs)
    t = float(t_dist.ppf(0.975, len(logs) - 1))
    half = t * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def startup_part(root: Path, repeat: int) -> float:
    """Start-up times, isolated and plain; the worst isolated one."""
    times: dict[bool, list[float]] = {True: [], False: []}
    for index in range(repeat):
        for isolated in (True, False):
            times[isolated].append(startup(root, isolated, index))
            kind = "isolated" if isolated else "plain"
            print(f"up 3 nodes {kind:8s} {times[isolated][-1]:5.1f} s", flush=True)
    worst = max(times[True])
    ratio = statistics.median(times[True]) / statistics.median(times[False])
    print(
        f"isolated 3-node start-up: median {statistics.median(times[True]):.1f} s, worst "
        f"{worst:.1f} s, target <= {STARTUP_TARGET_S:.0f} s "
        f"({'ok' if worst <= STARTUP_TARGET_S else 'MISSED'}); isolated/plain median ratio "
        f"{ratio:.2f} (n={repeat} each)"
    )
    return worst


def op_rate_part(root: Path, args: argparse.Namespace) -> None:
    """The same load on a plain and a netns node with the same CPU limit, paired by round."""
    process = cluster_spec(
        name="bench-process",
        heap="1G",
        cpus=args.cpus,
        base_address="127.0.233.10",
        jmx_port_base=9160,
    )
    netns = cluster_spec(
        name="bench-netns", heap="1G", cpus=args.cpus, isolation="netns", jmx_port_base=9170
    )
    rates: dict[str, list[float]] = {"process": [], "netns": []}
    with (
        create(process, root, remove_on_exit=True) as plain,
        create(netns, root, remove_on_exit=True) as in_netns,
    ):
        targets = {"process": plain.nodes[0].address, "netns": in_netns.nodes[0].address}
        for kind, address in targets.items():  # JIT warm-up, discarded
            rate = stress(address, args.warmup)
            print(f"warm-up {kind}: {rate:,.0f} op/s (discarded)", flush=True)
        shuffle = random.Random(13)
        for round_number in range(1, args.rounds + 1):
            order = list(targets)
            shuffle.shuffle(order)
            for kind in order:
                rate = stress(targets[kind], args.seconds)
                rates[kind].append(rate)
                print(f"round {round_number} {kind:7s} {rate:,.0f} op/s", flush=True)
    ratio, low, high = paired_ratio(rates["process"], rates["netns"])
    estimate = fieller_ratio(summary(rates["process"]), summary(rates["netns"]))
    fieller = "undetermined"
    if estimate.ci is not None and estimate.ratio is not None:
        fieller = f"{estimate.ratio:.3f} ({estimate.ci.low:.3f}-{estimate.ci.high:.3f})"
    verdict = "not significant" if low <= 1.0 <= high else "significant"
    print(
        f"op rate netns/process at {args.cpus:g} CPU per node, paired by round: {ratio:.3f} "
        f"(95% CI {low:.3f}-{high:.3f}, {verdict}); ratio of means with Fieller's CI "
        f"{fieller}; {args.rounds} rounds of {args.seconds} s; process mean "
        f"{statistics.fmean(rates['process']):,.0f}, netns mean "
        f"{statistics.fmean(rates['netns']):,.0f} op/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="start-ups of each kind")
    parser.add_argument("--rounds", type=int, default=6, help="op-rate trials of each kind")
    parser.add_argument("--seconds", type=int, default=20, help="length of one trial")
    parser.add_argument("--cpus", type=float, default=1.0, help="CPU limit of each node")
    parser.add_argument("--warmup", type=int, default=120, help="discarded run per node, s")
    parser.add_argument("--skip-startup", action="store_true", help="only the op-rate part")
    args = parser.parse_args()
    distribution.fetch(distribution.DEFAULT_VERSION)  # jars cached before timing
    with tempfile.TemporaryDirectory(prefix="casslab-bench-") as tmp:
        worst = 0.0 if args.skip_startup else startup_part(Path(tmp), args.repeat)
        op_rate_part(Path(tmp), args)
    raise SystemExit(0 if worst <= STARTUP_TARGET_S else 1)


if __name__ == "__main__":
    main()
