"""The real evaluator: every configuration is one trial through the experiment runner
(:meth:`casslab.experiment.run.runner.Runner.run_trial`: the nodes restart when its
cassandra.yaml settings differ from the last trial's, the data is reset, preloaded or
restored, warmed up and measured), all on the one cluster the runner keeps.

A candidate becomes the base experiment with one single-level factor per parameter
(``config.<key>``, ``table.<option>``; for ``goal: min-p99`` also ``rate``), expanded by
the experiment's own design code into one trial, which is renamed after the candidate's
label and added to the runner's plan: its files land in ``trials/<label>/1/`` of the
tuning run directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from casslab.cluster import create
from casslab.errors import CasslabError
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.design.plan_records import Cell, Trial
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import events
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions
from casslab.experiment.run.trial_cluster import ClusterFactory
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialResult, TrialStatus
from casslab.tune.loader import TuneFile
from casslab.tune.space import levels_of
from casslab.tune.spec import Goal, ParamValue
from casslab.tune.tuning_result import Measurement


def candidate_experiment(tune_file: TuneFile, params: Mapping[str, ParamValue]) -> Experiment:
    """The base experiment with the candidate's values as single-level factors."""
    factors: dict[str, list[Any]] = {
        name: [level] for name, level in levels_of(tune_file.tune.space, params).items()
    }
    objective = tune_file.tune.objective
    if objective.goal is Goal.MIN_P99 and objective.rate is not None:
        factors["rate"] = [objective.rate]
    data = tune_file.experiment.model_dump(by_alias=True)
    data.update(factors=factors, iterations=1, design="factorial", baseline={}, extra_cells=[])
    return Experiment.model_validate(data)


def candidate_trial(
    tune_file: TuneFile, params: Mapping[str, ParamValue], label: str
) -> tuple[Cell, Trial]:
    """The candidate's cell and trial, named ``label`` (pure)."""
    plan = expand(candidate_experiment(tune_file, params))
    cell = plan.cells[0].model_copy(update={"id": label, "baseline": False})
    trial = plan.trials[0].model_copy(update={"trial_id": f"{label}/1", "cell_id": label})
    return cell, trial


def measurement_of(
    result: TrialResult, params: Mapping[str, ParamValue], trial_dir: Any
) -> Measurement:
    """What the search needs of a trial's result."""
    label = result.cell_id
    if result.status is not TrialStatus.OK:
        return Measurement(
            label=label,
            params=dict(params),
            finished=False,
            reason=result.error or "the trial failed",
            trial_dir=trial_dir,
        )
    kpis = result.kpis
    return Measurement(
        label=label,
        params=dict(params),
        finished=True,
        op_rate=kpis.get("op_rate"),
        p99_ms=kpis.get("latency_p99_ms"),
        errors=kpis.get("errors"),
        trial_dir=trial_dir,
    )


class RunnerEvaluator:
    """Measures candidates as real trials on one shared cluster (see the module doc)."""

    def __init__(
        self,
        tune_file: TuneFile,
        layout: RunLayout,
        options: RunnerOptions,
        on_event: events.EventSink | None = None,
        *,
        create_cluster: ClusterFactory = create,
    ) -> None:
        self.tune_file = tune_file
        self.layout = layout
        self.runner = Runner(
            tune_file.experiment, layout, options, on_event, create_cluster=create_cluster
        )

    def evaluate(self, params: Mapping[str, ParamValue], label: str) -> Measurement:
        try:
            cell, trial = candidate_trial(self.tune_file, params, label)
        except (CasslabError, ValidationError) as error:  # refused by the experiment's rules
            return Measurement(label=label, params=dict(params), finished=False, reason=str(error))
        plan = self.runner.plan
        cells = (*(c for c in plan.cells if c.id != label), cell)
        trials = tuple(t for t in plan.trials if t.cell_id != label)
        trial = trial.model_copy(update={"position": len(trials)})
        self.runner.plan = plan.model_copy(update={"cells": cells, "trials": (*trials, trial)})
        result = self.runner.run_trial(trial)
        return measurement_of(result, params, self.layout.trial_dir(label, 1))

    def close(self) -> None:
        """Stop the cluster and whatever else the trials started."""
        self.runner.close()
