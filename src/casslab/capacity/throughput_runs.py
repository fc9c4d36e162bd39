"""Read run directories for ``casslab capacity model``: each run's finished trials and the
levels its experiment fixed outside its factors (I/O; the fit is
:mod:`casslab.capacity.throughput_fit`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from casslab.analysis.run_frames import analysed_trials
from casslab.capacity.throughput_fit import NODE_SIZE, NODES, WORKLOAD, RunTrials
from casslab.store.run_data import read_run


def fixed_levels(experiment_name: str, experiment: Mapping[str, Any]) -> dict[str, str]:
    """The levels a run's resolved experiment fixes: its cluster's ``node_size`` and
    ``nodes``, and its name standing for the workload (when the workload is no factor)."""
    fixed = {WORKLOAD: experiment_name}
    cluster = experiment.get("cluster")
    if isinstance(cluster, Mapping):
        if cluster.get("node_size") is not None:
            fixed[NODE_SIZE] = str(cluster["node_size"])
        if cluster.get("nodes") is not None:
            fixed[NODES] = str(cluster["nodes"])
    return fixed


def read_runs(paths: Sequence[Path]) -> list[RunTrials]:
    """The finished trials of each run directory in ``paths`` (StoreError when one is not
    a run directory)."""
    runs = []
    for path in paths:
        run = read_run(path)
        runs.append(
            RunTrials(
                source=str(path),
                trials=analysed_trials(run),
                fixed=fixed_levels(run.manifest.experiment_name, run.manifest.experiment),
            )
        )
    return runs
