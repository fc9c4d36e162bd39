"""The joint search against a one-at-a-time sweep of the same trial budget, on the
synthetic objective of :mod:`casslab.tune.synthetic` (known optimum, interacting knobs; no
Cassandra): the best feasible op rate each finds, as a share of the optimum, per sampler
seed and budget, and the search's own time (Optuna, SQLite storage, the confirmation off).

    .venv/bin/python bench/tune_search.py [--budgets 12 24] [--seeds 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from casslab.tune.spec import Budget, Compare, Confirm, Objective, TuneSection
from casslab.tune.synthetic import OPTIMUM, SPACE, Synthetic
from casslab.tune.tuner import Tuner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[12, 24])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    print("budget  seed  search best  sweep best  (share of the optimum)  seconds")
    for budget in args.budgets:
        for seed in range(args.seeds):
            tune = TuneSection(
                space=SPACE,
                objective=Objective(p99_ms_max=40),
                budget=Budget(trials=budget),
                confirm=Confirm(top=0),
                compare=Compare.ONE_AT_A_TIME,
                seed=seed,
            )
            started = time.monotonic()
            with tempfile.TemporaryDirectory() as work:
                result = Tuner("bench", tune, Path(work), Synthetic(), lambda _e: None).run()
            search = (result.best.objective or 0.0) / OPTIMUM
            sweep = ((result.sweep_best.objective or 0.0) if result.sweep_best else 0.0) / OPTIMUM
            seconds = time.monotonic() - started
            print(f"{budget:6d}  {seed:4d}  {search:11.1%}  {sweep:10.1%}  {seconds:31.1f}")


if __name__ == "__main__":
    main()
