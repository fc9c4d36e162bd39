"""Read a finished (or interrupted) run into pandas frames, for notebooks.

import casslab.results
run = casslab.results.load("results/quick-compaction/20261122T170549Z")
run.trials      # one row per trial: trial_id, cell_id, iteration, factor columns, KPIs
run.intervals   # one row per measured engine interval
run.metrics     # long format: trial_id, time, node, metric, value
run.manifest    # versions, host, the resolved experiment
run.plan        # cells, factors, baseline, trial order (None for runs before plan.json)

The public name of :mod:`casslab.store.results`, which does the work.
"""

from __future__ import annotations

from casslab.store.results import Results, load

__all__ = ["Results", "load"]
