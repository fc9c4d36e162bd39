"""Is the first trial after a node start within the spread of the later trials of its cell?

Runs ``bench/experiments/first-trial.yaml`` (the demo's workload, one cell, five
iterations in a row) ``--runs`` times, each on a fresh node, and prints per run the op rate
of trial 1 against trials 2-5: their range, and the 95% prediction interval of one more
trial from their distribution (mean ± t(0.975, n-1)·s·√(1 + 1/n)); and the JVM warm-up
each run needed (the rehearsal that ends when the node's JIT compilers are quiet, see
:mod:`casslab.experiment.run.jvm_warmup`). Over the runs, the ratio of trial 1 to the mean of the
later trials, with its 95% CI. Target (issue 11, defect 2): trial 1 inside the prediction
interval in every run, and a ratio CI that contains 1. (Inside the *range* of four later
trials is asked of a trial from the same distribution only 3 times in 5, so it is shown,
not judged.) About 5 minutes a run on 2 cores. Usage::

    .venv/bin/python bench/first_trial.py [--runs 3] [--jvm-warmup 180]
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from scipy.stats import t

from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialStatus, read_trial_result

EXPERIMENT = Path(__file__).parent / "experiments" / "first-trial.yaml"
ITERATIONS = 5  # as in the experiment file


def prediction_interval(values: list[float]) -> tuple[float, float]:
    """95% prediction interval of one more draw from the distribution of ``values``."""
    n = len(values)
    half = t.ppf(0.975, n - 1) * statistics.stdev(values) * math.sqrt(1 + 1 / n)
    return statistics.mean(values) - half, statistics.mean(values) + half


def one_run(results: Path, jvm_warmup: float) -> tuple[bool, float] | None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "casslab",
            "run",
            str(EXPERIMENT),
            "--results",
            str(results),
            "--base-address",
            "127.0.240.1",
            "--jmx-port-base",
            "8950",
            "--jvm-warmup",
            f"{jvm_warmup:g}",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (run,) = sorted((results / "first-trial").iterdir())[-1:]
    trials = sorted(
        (read_trial_result(p) for p in RunLayout(root=run).trial_summaries()),
        key=lambda r: r.iteration,
    )
    rates = [r.kpis.get("op_rate") for r in trials if r.status is TrialStatus.OK]
    if len(rates) != ITERATIONS or any(rate is None for rate in rates):
        print(f"  {run}: not every trial measured an op rate: {rates}")
        return None
    first, *later = [float(rate) for rate in rates if rate is not None]
    low, high = prediction_interval(later)
    inside = low <= first <= high
    ratio = first / statistics.mean(later)
    warmup = trials[0].phase_s.get("jvm warm-up", 0.0)
    mismatches = [r.engine.total.mismatches if r.engine else None for r in trials]
    print(
        f"  trial 1 {first:9,.0f} op/s | trials 2-{ITERATIONS} "
        f"{', '.join(f'{rate:,.0f}' for rate in later)} | 95% PI {low:,.0f}..{high:,.0f} "
        f"{'inside' if inside else 'OUTSIDE'} | in range: "
        f"{'yes' if min(later) <= first <= max(later) else 'no'} | ratio to their mean "
        f"{ratio:.3f} | JVM warm-up {warmup:.0f} s | mismatches {mismatches}"
    )
    return inside, ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jvm-warmup", type=float, default=180.0)
    args = parser.parse_args()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="casslab-first-trial-") as tmp:
        for index in range(args.runs):
            print(f"run {index + 1} of {args.runs}")
            outcome = one_run(Path(tmp) / f"run{index}", args.jvm_warmup)
            if outcome is not None:
                outcomes.append(outcome)
    inside = sum(ok for ok, _ in outcomes)
    ratios = [ratio for _, ratio in outcomes]
    print(
        "\ntrial 1 inside the 95% prediction interval of the later trials: "
        f"{inside} of {args.runs} runs"
    )
    contains_one = True
    if len(ratios) >= 2:
        half = t.ppf(0.975, len(ratios) - 1) * statistics.stdev(ratios) / math.sqrt(len(ratios))
        mean = statistics.mean(ratios)
        low, high = mean - half, mean + half
        contains_one = low <= 1 <= high
        print(f"trial 1 / mean of the later trials: {mean:.3f}, 95% CI {low:.3f}..{high:.3f}")
    print("verdict:", "PASS" if inside == args.runs and contains_one else "FAIL")


if __name__ == "__main__":
    main()
