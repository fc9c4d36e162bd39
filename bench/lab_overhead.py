"""The lab's overhead in a finished run: the share of the run's wall time spent outside the
warm-up and measured phases its experiment file asks for (node starts, JVM warm-up,
resets, preloads, restores, metric start-up, the report). Targets (issue 11): at most 15%
for ``make demo``; reset plus restore at most 5 s per trial for the demo's data.

Reads the run directories given (their ``manifest.json`` and trial summaries); with
``--run FILE`` it first runs that experiment (``casslab run FILE``) and measures the whole
command's wall time, report included. A run written before casslab recorded per-phase
times still gets its overhead share (from the trials' measured windows). Usage::

    .venv/bin/python bench/lab_overhead.py results/quick-compaction/<before> [<after> ...]
    .venv/bin/python bench/lab_overhead.py --run experiments/quick-compaction.yaml
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialResult, read_manifest, read_trial_result

TARGET_SHARE = 0.15
TARGET_RESTORE_S = 5.0


def _requested_s(result: TrialResult, warmup_s: float) -> float:
    """What the file asks of a trial: its engine warm-up plus the measured window."""
    if result.measure_start_s is None or result.measure_end_s is None:
        return 0.0
    return warmup_s + result.measure_end_s - result.measure_start_s


def report(run: Path, wall_s: float | None = None) -> bool:
    layout = RunLayout(root=run)
    manifest = read_manifest(layout.manifest)
    results = [read_trial_result(p) for p in layout.trial_summaries()]
    warmup = manifest.experiment.get("warmup", "0s")
    from casslab.experiment.file.experiment_model import parse_duration_s

    warmup_s = parse_duration_s(warmup)
    if wall_s is None:
        if manifest.ended_at is None:
            print(f"{run}: the run has not ended", file=sys.stderr)
            return False
        wall_s = (manifest.ended_at - manifest.started_at).total_seconds()
    requested = sum(_requested_s(r, warmup_s) for r in results)
    share = 1 - requested / wall_s if wall_s > 0 else 1.0
    print(f"\n{run}")
    print(f"  trials {len(results)}, wall {wall_s:.1f} s, asked for {requested:.1f} s")
    print(f"  lab overhead {share:.1%} of the wall time (target <= {TARGET_SHARE:.0%})")
    phases: dict[str, list[float]] = {}
    for result in results:
        for name, seconds in result.phase_s.items():
            phases.setdefault(name, []).append(seconds)
    for name, values in sorted(phases.items()):
        print(f"  {name:<12} total {sum(values):7.1f} s  mean {statistics.mean(values):5.2f} s")
    restores = [
        r.phase_s.get("reset", 0.0) + r.phase_s["restore"]
        for r in results
        if "restore" in r.phase_s
    ]
    ok = share <= TARGET_SHARE
    if restores:
        worst = max(restores)
        print(
            f"  reset + restore: mean {statistics.mean(restores):.2f} s, max {worst:.2f} s "
            f"(target <= {TARGET_RESTORE_S:g} s)"
        )
        ok = ok and worst <= TARGET_RESTORE_S
    else:
        print("  reset + restore: not recorded (run without captured data, or an older casslab)")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="run directories")
    parser.add_argument("--run", type=Path, help="run this experiment file first")
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args()
    measured: list[tuple[Path, float | None]] = [(run, None) for run in args.runs]
    if args.run is not None:
        started = time.monotonic()
        before = set(args.results.glob("*/*"))
        subprocess.run(
            [sys.executable, "-m", "casslab", "run", str(args.run), "--results", str(args.results)],
            check=True,
        )
        wall = time.monotonic() - started
        new = sorted(set(args.results.glob("*/*")) - before)
        measured += [(run, wall) for run in new if (run / "manifest.json").is_file()]
    if not measured:
        parser.error("give run directories or --run FILE")
    verdicts = [report(run, wall) for run, wall in measured]
    print("\nverdict:", "PASS" if verdicts[-1] else "FAIL", "(the last run against the targets)")


if __name__ == "__main__":
    main()
