"""How many trials adaptive iterations save against a fixed number, replayed on a real run.

Takes a finished run with a fixed number of iterations (e.g. the demo's design run with
``iterations: 10``) and replays the precision stopping rule
(:func:`casslab.analysis.stopping.decide`) round by round, in the run's own order: after
each round, would ``iterations: {min: M, max: N, until: {kpis: K, ci_half_width_pct: P}}``
have stopped? For each target it prints the round it stops at, the trials run against the
fixed N, and the widest CI half-width left, so the saving is read at equal precision.
Usage::

    .venv/bin/python bench/adaptive_savings.py RUN_DIR [--min 3] [--targets 3 5 10]
        [--kpis op_rate latency_p99_ms]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from casslab.analysis import TrialKpis
from casslab.analysis.stopping import decide
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialStatus, read_trial_result


def _trials(run: Path) -> list[tuple[int, TrialKpis]]:
    out = []
    for path in RunLayout(root=run).trial_summaries():
        result = read_trial_result(path)
        if result.status is TrialStatus.OK:
            kpis = TrialKpis(
                trial_id=result.trial_id,
                cell_id=result.cell_id,
                iteration=result.iteration,
                factors=result.factors,
                kpis=result.kpis,
            )
            out.append((result.iteration, kpis))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--min", type=int, default=3, dest="min_iterations")
    parser.add_argument("--targets", type=float, nargs="+", default=[3.0, 5.0, 10.0])
    parser.add_argument("--kpis", nargs="+", default=["op_rate", "latency_p99_ms"])
    args = parser.parse_args()
    trials = _trials(args.run)
    rounds = max(iteration for iteration, _ in trials)
    cells = sorted({t.cell_id for _, t in trials})
    print(f"{args.run}: {len(cells)} cells x {rounds} iterations, KPIs {', '.join(args.kpis)}")
    for target in args.targets:
        stopped = rounds
        sentence = ""
        for round_number in range(args.min_iterations, rounds + 1):
            decision = decide(
                [t for iteration, t in trials if iteration <= round_number],
                kpis=args.kpis,
                target_pct=target,
                cells=cells,
                rounds=round_number,
                min_iterations=args.min_iterations,
                max_iterations=rounds,
            )
            stopped, sentence = round_number, decision.sentence
            if decision.done:
                break
        run_trials = stopped * len(cells)
        fixed = rounds * len(cells)
        print(
            f"  target ±{target:g}%: stops after {stopped} round(s), {run_trials} of {fixed} "
            f"trials ({1 - run_trials / fixed:.0%} saved): {sentence}"
        )


if __name__ == "__main__":
    main()
