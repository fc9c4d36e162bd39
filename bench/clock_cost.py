"""Benchmark: what casslab's injectable clock costs a node (issue 39).

The same 1-node cluster (512M heap, class-data sharing as always) is started stock and
with the injectable clock (``casslab.SkewedClock``: every ``currentTimeMillis`` through
casslab's class, its clock file polled every 100 ms, Cassandra's epoch re-sampled every
second instead of ten), in a random order within each round. In each start the same
closed-loop load runs: a preload, a warm-up, then the measured mixed load (half writes,
each taking a write timestamp from the clock). Per round and condition: op rate and p99.

The verdict is Welch's t-test and Fieller's 95% interval on the ratio injectable/stock
over the rounds (casslab.analysis.inference): a difference is reported only when the
interval excludes 1; otherwise "not distinguishable from zero at this sample size".

    .venv/bin/python bench/clock_cost.py [--rounds 5] [--seconds 20] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from casslab.analysis.inference import SampleSummary, fieller_ratio, welch_test
from casslab.cluster import LocalCluster, cluster_spec, distribution

ADDRESS = "127.0.112.1"
KEYS = 20_000


def _stress(*words: str) -> dict[str, object]:
    """``casslab stress WORDS --json``: the summary record."""
    done = subprocess.run(
        [sys.executable, "-m", "casslab", "stress", *words, "-node", ADDRESS, "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise SystemExit(f"casslab stress {' '.join(words)} failed:\n{done.stderr[-2000:]}")
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    [summary] = [r for r in records if r.get("type") == "summary"]
    return dict(summary)


def measure(root: Path, injectable: bool, seconds: int) -> tuple[float, float]:
    """(op rate, p99 ms) of the measured load on a new node with or without the clock."""
    spec = cluster_spec(
        name="clockcost",
        nodes=1,
        heap="512M",
        base_address=ADDRESS,
        jmx_port_base=7720,
        injectable_clock=injectable,
    )
    with LocalCluster.create(spec, root, remove_on_exit=True):
        _stress("write", f"n={KEYS}", "-pop", f"seq=1..{KEYS}", "-rate", "threads=16")
        mixed = ["mixed", "ratio(write=1,read=1)"]
        keys = ["-pop", f"dist=UNIFORM(1..{KEYS})", "-rate", "threads=16"]
        _stress(*mixed, "duration=10s", *keys)  # JIT warm-up, discarded
        summary = _stress(*mixed, f"duration={seconds}s", *keys)
    total = summary["total"]
    assert isinstance(total, dict)
    duration = float(summary["duration_s"])  # type: ignore[arg-type]
    return float(total["count"]) / duration, float(total["response"]["p99_ms"])


def _summary(values: list[float]) -> SampleSummary:
    return SampleSummary(statistics.fmean(values), statistics.variance(values), len(values))


def verdict(name: str, stock: list[float], injectable: list[float]) -> str:
    ratio = fieller_ratio(_summary(stock), _summary(injectable))
    test = welch_test(_summary(stock), _summary(injectable))
    head = (
        f"{name}: stock {statistics.fmean(stock):,.1f}, injectable clock "
        f"{statistics.fmean(injectable):,.1f} (means of {len(stock)} rounds)"
    )
    if ratio.ci is None or ratio.ratio is None or test is None:
        return f"{head}; ratio undetermined: {ratio.undetermined_reason}"
    interval = f"ratio {ratio.ratio:.3f}, 95% CI [{ratio.ci.low:.3f}, {ratio.ci.high:.3f}]"
    if ratio.ci.low <= 1.0 <= ratio.ci.high:
        said = "not distinguishable from zero at this sample size"
    else:
        said = f"a difference of {100 * (ratio.ratio - 1):+.1f}%"
    return f"{head}; {interval}, Welch p={test.p_value:.3f}: {said}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    distribution.fetch(distribution.DEFAULT_VERSION)
    order = random.Random(args.seed)
    rates: dict[bool, list[float]] = {False: [], True: []}
    p99s: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory(prefix="casslab-clock-cost-") as tmp:
        for round_number in range(1, args.rounds + 1):
            conditions = [False, True]
            order.shuffle(conditions)
            for injectable in conditions:
                rate, p99 = measure(Path(tmp), injectable, args.seconds)
                rates[injectable].append(rate)
                p99s[injectable].append(p99)
                name = "injectable clock" if injectable else "stock"
                print(f"round {round_number} {name:16s} {rate:9,.0f} op/s  p99 {p99:7.1f} ms")
    print(verdict("op rate (op/s)", rates[False], rates[True]))
    print(verdict("p99 (ms)", p99s[False], p99s[True]))


if __name__ == "__main__":
    main()
