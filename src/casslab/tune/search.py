"""The joint search: Optuna's multivariate TPE over the space, ask and tell, one trial at a
time, in a study stored in ``study.db`` (SQLite) so a crash or Ctrl-C loses at most the
trial in flight and ``--resume`` continues.

* Sampler: ``TPESampler(multivariate=True, group=True)``, seeded (``tune.seed``):
  multivariate TPE models the parameters jointly (the interactions a one-at-a-time sweep
  cannot see); ``group`` models each strategy's sub-options apart. Constraints (p99 over
  its bound, errors, open-loop rate short of its target) are set on each trial with
  ``Trial.set_constraint`` (Optuna 5's replacement of ``constraints_func``, which the
  TPE sampler reads alike): they steer it to feasible regions.
* The default configuration is enqueued as the first trial (``study.enqueue_trial``), so
  the search starts from it and every later trial is seen against it.
* A trial found RUNNING when a study is opened again was interrupted: it is marked FAIL and
  its configuration enqueued again, so it is re-asked first.
* Importance: ``optuna.importance`` with the PED-ANOVA evaluator (no scikit-learn), over
  the feasible trials' objective.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from casslab.tune import objective as obj
from casslab.tune.evaluator import Asked, Evaluator, Note, Told, TuneSink
from casslab.tune.space import default_params, suggest
from casslab.tune.spec import Objective, TuneSection
from casslab.tune.tuning_result import Measurement, Role, ScoredTrial

STUDY_NAME = "casslab-tune"
IMPORTANCE_METHOD = (
    "PED-ANOVA (optuna.importance.PedAnovaImportanceEvaluator): how much each parameter's "
    "distribution in the top 10% of feasible trials differs from all feasible trials"
)
_ATTR = "measurement"  # a trial's Measurement (JSON) in its user attributes
_ROLE = "role"


def storage_url(run_dir: Path) -> str:
    return f"sqlite:///{(run_dir / 'study.db').resolve()}"


def open_study(run_dir: Path, tune: TuneSection) -> optuna.Study:
    """The run's study: created with the default configuration enqueued, or loaded, with
    its interrupted trials marked FAIL and enqueued again."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(
            seed=tune.seed,
            multivariate=True,
            group=True,
            n_startup_trials=min(10, max(2, (tune.budget.trials or 20) // 3)),
        )
    study = optuna.create_study(
        storage=storage_url(run_dir),
        sampler=sampler,
        study_name=STUDY_NAME,
        directions=obj.directions(tune.objective),
        load_if_exists=True,
    )
    if not study.trials:
        study.enqueue_trial(default_params(tune.space), user_attrs={_ROLE: Role.DEFAULT.value})
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(trial.number, state=TrialState.FAIL)
        study.enqueue_trial(
            dict(trial.params), user_attrs={_ROLE: trial.user_attrs.get(_ROLE, "search")}
        )
    return study


def label_of(number: int) -> str:
    return f"s{number:03d}"


def scored_trials(study: optuna.Study, objective: Objective) -> list[ScoredTrial]:
    """The study's finished trials, scored again from their stored measurements."""
    out: list[ScoredTrial] = []
    for trial in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        raw = trial.user_attrs.get(_ATTR)
        if not isinstance(raw, str):
            continue
        measurement = Measurement.model_validate_json(raw)
        role = Role.DEFAULT if trial.user_attrs.get(_ROLE) == "default" else Role.SEARCH
        out.append(obj.score(objective, measurement, role, trial.number))
    return out


def _trial_seconds(study: optuna.Study) -> float:
    total = 0.0
    for trial in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if trial.datetime_start is not None and trial.datetime_complete is not None:
            total += (trial.datetime_complete - trial.datetime_start).total_seconds()
    return total


def run_search(
    study: optuna.Study,
    tune: TuneSection,
    evaluator: Evaluator,
    emit: TuneSink,
    *,
    trials: int | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> str:
    """Ask, evaluate and tell until the budget is spent (``trials`` overrides the file's);
    returns what stopped it. A finished trial's measurement and constraints are stored
    with it before it is told, so a resumed study scores it without measuring again."""
    limit = trials if trials is not None else tune.budget.trials
    wall = tune.budget.wall_s
    space, objective = tune.space, tune.objective
    while True:
        done = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
        spent = _trial_seconds(study)
        if limit is not None and done >= limit:
            return f"{done} trials (the budget)"
        if wall is not None and spent >= wall:
            return f"{spent:.0f} s of trials (the wall budget, {wall:g} s)"
        trial = study.ask()
        role = Role(trial.user_attrs.get(_ROLE, Role.SEARCH.value))
        if role is Role.DEFAULT:
            params = suggest(trial, space, only=set(default_params(space)))
        else:
            params = suggest(trial, space)
        label = label_of(trial.number)
        emit(Asked(role=role, label=label, params=params, index=done + 1, count=limit))
        started = clock()
        measurement = evaluator.evaluate(params, label)
        measurement = measurement.model_copy(update={"duration_s": clock() - started})
        scored = obj.score(objective, measurement, role, trial.number)
        trial.set_user_attr(_ATTR, measurement.model_dump_json())
        for key, value in obj.constraint_values(objective, measurement).items():
            trial.set_constraint(key, value)
        study.tell(trial, list(scored.values))
        emit(Told(trial=scored))


def importance(study: optuna.Study, objective: Objective) -> dict[str, float]:
    """Each parameter's importance for the objective (PED-ANOVA over feasible trials);
    empty when there are too few trials to tell (fewer than 4 feasible)."""
    scored = {t.number: t for t in scored_trials(study, objective) if t.feasible}
    feasible = [  # the default configuration may lack parameters (Cassandra's defaults)
        t
        for t in study.get_trials(deepcopy=False)
        if t.number in scored and t.user_attrs.get(_ROLE) != Role.DEFAULT.value
    ]
    if len(feasible) < 4:
        return {}
    sub = optuna.create_study(directions=[obj.direction_of(objective)])
    for trial in feasible:
        sub.add_trial(
            optuna.trial.create_trial(
                params=trial.params,
                distributions=trial.distributions,
                value=obj.primary(objective, scored[trial.number]),
            )
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found: dict[str, Any] = optuna.importance.get_param_importances(
                sub, evaluator=optuna.importance.PedAnovaImportanceEvaluator()
            )
    except (ValueError, RuntimeError):  # e.g. every value the same
        return {}
    return {k: float(v) for k, v in found.items() if math.isfinite(float(v))}


def note_resumed(study: optuna.Study, emit: TuneSink) -> None:
    """Say how much of the study there is already (on --resume)."""
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    failed = study.get_trials(deepcopy=False, states=(TrialState.FAIL,))
    if done or failed:
        emit(
            Note(
                message=f"resuming: {len(done)} trial(s) finished, {len(failed)} interrupted "
                "(their configurations are asked again first)"
            )
        )
