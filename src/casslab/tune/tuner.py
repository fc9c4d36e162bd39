"""One tuning run from start (or resume) to result: the search, the one-at-a-time sweep
it is compared with (when asked), the confirmation of the best candidates against the
default configuration, and the :class:`~casslab.tune.tuning_result.TuningResult`.

I/O: the study's SQLite file and ``journal.json`` (the sweep's and the confirmation's
measurements, written after each, so a resumed run measures none of them twice); what
measures a configuration is the :class:`~casslab.tune.evaluator.Evaluator` given.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field

from casslab.record import Record
from casslab.store.io import atomic_write, read_record
from casslab.tune import objective as obj
from casslab.tune.confirm import DEFAULT, confirm_label, pick, schedule, verdict
from casslab.tune.evaluator import Asked, Evaluator, Note, Told, TuneSink
from casslab.tune.search import (
    IMPORTANCE_METHOD,
    importance,
    note_resumed,
    open_study,
    run_search,
    scored_trials,
)
from casslab.tune.space import Params, default_params, describe, settings_of, table_of
from casslab.tune.spec import Compare, Goal, ParamValue, TuneSection
from casslab.tune.sweep import combination, sweep_points
from casslab.tune.tuning_result import (
    Confirmation,
    Measurement,
    Point,
    Recommendation,
    Role,
    ScoredTrial,
    TuningResult,
    Verdict,
)


class Journal(Record):
    """``journal.json``: the sweep's and the confirmation's measurements, by label."""

    schema_version: Literal[1] = 1
    measurements: dict[str, Measurement] = Field(default_factory=dict)


class Tuner:
    """Runs one tuning study into ``run_dir`` (see the module docstring)."""

    def __init__(
        self,
        name: str,
        tune: TuneSection,
        run_dir: Path,
        evaluator: Evaluator,
        emit: TuneSink,
        *,
        trials: int | None = None,
        compare: bool | None = None,
    ) -> None:
        """``trials`` overrides the file's trial budget (``--budget``), ``compare`` its
        ``compare:`` (``--compare-sweep``)."""
        self.name = name
        self.tune = tune
        self.run_dir = run_dir
        self.evaluator = evaluator
        self.emit = emit
        self.trials = trials
        self.compare = compare if compare is not None else tune.compare is Compare.ONE_AT_A_TIME
        path = run_dir / "journal.json"
        self._journal = (
            read_record(path, Journal, "tuning journal") if path.is_file() else Journal()
        )

    # ------------------------------------------------------------------ measuring

    def _measure(
        self, params: Params, label: str, role: Role, index: int, count: int
    ) -> Measurement:
        """A measurement of the journal, or a new one (written to the journal at once). A
        journal entry of the same label but other settings (a resume with another
        ``--budget`` changed the candidates) is measured again."""
        known = self._journal.measurements.get(label)
        if known is not None and known.params == params:
            return known
        self.emit(Asked(role=role, label=label, params=params, index=index, count=count))
        started = time.monotonic()
        measurement = self.evaluator.evaluate(params, label)
        measurement = measurement.model_copy(update={"duration_s": time.monotonic() - started})
        updated = {**self._journal.measurements, label: measurement}
        self._journal = Journal(measurements=updated)
        atomic_write(self.run_dir / "journal.json", self._journal.model_dump_json(indent=1))
        self.emit(Told(trial=obj.score(self.tune.objective, measurement, role)))
        return measurement

    # ------------------------------------------------------------------ phases

    def _sweep(self, trials: int) -> list[ScoredTrial]:
        objective = self.tune.objective
        default = default_params(self.tune.space)
        points = sweep_points(self.tune.space, default, trials)
        self.emit(Note(message=f"one-at-a-time sweep: {trials} trials, as many as the search"))
        out: list[ScoredTrial] = []
        for index, point in enumerate(points, start=1):
            m = self._measure(point, f"sweep-{index:02d}", Role.SWEEP, index, trials)
            out.append(obj.score(objective, m, Role.SWEEP))
        if trials >= 2:
            values: list[float | None] = [
                obj.primary(objective, t) if t.feasible else None for t in out
            ]
            maximize = obj.direction_of(objective) == "maximize"
            combined = combination(self.tune.space, default, points, values, maximize)
            if combined not in points:
                label = f"sweep-{len(points) + 1:02d}"
                m = self._measure(combined, label, Role.SWEEP, len(points) + 1, trials)
                out.append(obj.score(objective, m, Role.SWEEP))
        return out

    def _confirm(
        self, candidates: Sequence[tuple[ScoredTrial, Role]]
    ) -> tuple[list[Confirmation], list[Measurement]]:
        reps = self.tune.confirm.repetitions
        if not candidates:
            return [], []
        order = schedule(len(candidates), reps)
        self.emit(
            Note(
                message=f"confirmation: {len(candidates)} candidate(s) x {reps} repetitions, "
                "interleaved with the default configuration"
            )
        )
        default = default_params(self.tune.space)
        measured: dict[str, list[Measurement]] = {}
        every: list[Measurement] = []
        for index, (round_number, slot) in enumerate(order, start=1):
            params = (
                default if slot == DEFAULT else candidates[int(slot[1:]) - 1][0].measurement.params
            )
            label = confirm_label(round_number, slot)
            m = self._measure(dict(params), label, Role.CONFIRM, index, len(order))
            measured.setdefault(slot, []).append(m)
            every.append(m)
        confirmations = [
            verdict(
                self.tune.objective,
                trial.measurement.label,
                role,
                dict(trial.measurement.params),
                measured.get(f"c{i}", []),
                measured.get(DEFAULT, []),
            )
            for i, (trial, role) in enumerate(candidates, start=1)
        ]
        return confirmations, every

    # ------------------------------------------------------------------ the run

    def run(self) -> TuningResult:
        tune, objective = self.tune, self.tune.objective
        study = open_study(self.run_dir, tune)
        note_resumed(study, self.emit)
        stopped = run_search(study, tune, self.evaluator, self.emit, trials=self.trials)
        searched = sorted(scored_trials(study, objective), key=lambda t: t.number or 0)
        default = default_params(tune.space)
        sweep = self._sweep(len(searched)) if self.compare else []
        ranked = [t for t in obj.ranked(objective, searched) if t.measurement.params != default]
        candidates: list[tuple[ScoredTrial, Role]] = [
            (t, Role.SEARCH) for t in ranked[: tune.confirm.top]
        ]
        sweep_ranked = obj.ranked(objective, sweep)
        sweep_top = sweep_ranked[0] if sweep_ranked else None
        if tune.confirm.top and sweep_top is not None:
            seen = [t.measurement.params for t, _ in candidates] + [default]
            if sweep_top.measurement.params not in seen:
                candidates.append((sweep_top, Role.SWEEP))
        confirmations, confirm_trials = self._confirm(candidates)
        return self._result(
            study_trials=searched,
            sweep=sweep,
            confirmations=confirmations,
            confirm_trials=confirm_trials,
            stopped=stopped,
            importance_of=importance(study, objective),
        )

    def _result(
        self,
        *,
        study_trials: list[ScoredTrial],
        sweep: list[ScoredTrial],
        confirmations: list[Confirmation],
        confirm_trials: list[Measurement],
        stopped: str,
        importance_of: dict[str, float],
    ) -> TuningResult:
        tune, objective = self.tune, self.tune.objective
        default = default_params(tune.space)
        metric = obj.metric_of(objective)
        ranked = [t for t in obj.ranked(objective, study_trials) if t.measurement.params != default]
        default_trial = next((t for t in study_trials if t.role is Role.DEFAULT), None)
        search_conf = [c for c in confirmations if c.source is Role.SEARCH]
        chosen = pick(search_conf, objective)
        best = _best_point(objective.goal, search_conf, ranked, metric)
        default_point = _default_point(confirmations, default, default_trial, metric)
        sweep_best = _sweep_point(confirmations, obj.ranked(objective, sweep), metric)
        if chosen is not None:
            gain = f"{chosen.gain_pct:+.1f}%" if chosen.gain_pct is not None else "?"
            ci = chosen.gain_ci_pct or (0.0, 0.0)
            sentence = (
                f"adopt {describe(chosen.params)}: {metric} {gain} over the default "
                f"(95% CI {ci[0]:+.1f}% .. {ci[1]:+.1f}%), from trials "
                f"{', '.join((*chosen.candidate.labels, *chosen.default.labels))}"
            )
            recommendation = Recommendation(
                verdict=Verdict.GAIN,
                sentence=sentence,
                params=chosen.params,
                settings=settings_of(tune.space, chosen.params),
                table=table_of(tune.space, chosen.params),
                gain_pct=chosen.gain_pct,
                gain_ci_pct=chosen.gain_ci_pct,
            )
        else:
            why = (
                "no candidate's gain over the default is significant at 95% "
                + "("
                + "; ".join(f"{c.label}: {c.verdict.value}, {c.reason}" for c in search_conf)
                + ")"
                if search_conf
                else "nothing was confirmed (confirm.top is 0 or no feasible candidate), so "
                "no gain is established"
            )
            recommendation = Recommendation(
                verdict=Verdict.NO_GAIN,
                sentence=f"keep the default configuration: {why}",
                params=default,
                settings=settings_of(tune.space, default),
                table=table_of(tune.space, default),
            )
        return TuningResult(
            name=self.name,
            objective=objective.describe(),
            metric=metric,
            direction=obj.direction_of(objective),
            best=best,
            default=default_point,
            trials=tuple(study_trials),
            sweep=tuple(sweep),
            sweep_best=sweep_best,
            confirmations=tuple(confirmations),
            confirm_trials=tuple(confirm_trials),
            recommendation=recommendation,
            importance=importance_of,
            importance_method=IMPORTANCE_METHOD if importance_of else "",
            pareto=tuple(obj.ranked(objective, study_trials))
            if objective.goal is Goal.PARETO
            else (),
            search_s=sum(t.measurement.duration_s for t in study_trials),
            budget_trials=self.trials if self.trials is not None else tune.budget.trials,
            stopped_by=stopped,
        )


def _metric(trial: ScoredTrial, metric: str) -> float | None:
    m = trial.measurement
    return m.op_rate if metric == "op_rate" else m.p99_ms


def _best_point(
    goal: Goal, confirmed: Sequence[Confirmation], ranked: Sequence[ScoredTrial], metric: str
) -> Point:
    """The best candidate: by its confirmed mean when confirmed, else the search's best."""
    means = [c for c in confirmed if c.candidate.mean is not None]
    if means:
        sign = 1.0 if goal is Goal.MIN_P99 else -1.0
        top = min(means, key=lambda c: sign * (c.candidate.mean or 0.0))
        return Point(
            params=top.params,
            objective=top.candidate.mean,
            ci=top.candidate.ci,
            label=top.label,
            trials=top.candidate.labels,
        )
    if ranked:
        first = ranked[0]
        return Point(
            params=first.measurement.params,
            objective=_metric(first, metric),
            label=first.measurement.label,
            trials=(first.measurement.label,),
        )
    return Point(params={}, objective=None)


def _default_point(
    confirmed: Sequence[Confirmation],
    default: Mapping[str, ParamValue],
    trial: ScoredTrial | None,
    metric: str,
) -> Point:
    if confirmed:
        est = confirmed[0].default
        return Point(params=dict(default), objective=est.mean, ci=est.ci, trials=est.labels)
    if trial is not None:
        label = trial.measurement.label
        return Point(
            params=dict(default), objective=_metric(trial, metric), label=label, trials=(label,)
        )
    return Point(params=dict(default), objective=None)


def _sweep_point(
    confirmed: Sequence[Confirmation], ranked: Sequence[ScoredTrial], metric: str
) -> Point | None:
    if not ranked:
        return None
    top = ranked[0]
    for c in confirmed:
        if c.source is Role.SWEEP:
            return Point(
                params=c.params,
                objective=c.candidate.mean,
                ci=c.candidate.ci,
                label=c.label,
                trials=c.candidate.labels,
            )
    label = top.measurement.label
    return Point(
        params=top.measurement.params, objective=_metric(top, metric), label=label, trials=(label,)
    )
