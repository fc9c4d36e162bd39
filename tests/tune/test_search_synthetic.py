"""The search on a synthetic objective with a known optimum and interactions (a fake
evaluator, :mod:`casslab.tune.synthetic`: no Cassandra): it finds the optimum within its
budget where a one-at-a-time sweep of the same budget does not; the run is deterministic
for a seed; an interrupted study resumes, asking the interrupted configuration again;
confirmation and the output files follow."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import optuna
import pytest

from casslab.tune.evaluator import Told, TuneEvent
from casslab.tune.output import write_outputs
from casslab.tune.report import write_report
from casslab.tune.search import STUDY_NAME, storage_url
from casslab.tune.spec import Budget, Compare, Confirm, Goal, Objective, ParamValue, TuneSection
from casslab.tune.synthetic import DEFAULT_RATE, OPTIMUM, SPACE, Synthetic
from casslab.tune.tuner import Tuner
from casslab.tune.tuning_result import Measurement, Role, Verdict


def section(trials: int, *, confirm: Confirm | None = None, seed: int = 0) -> TuneSection:
    return TuneSection(
        space=SPACE,
        objective=Objective(p99_ms_max=40),
        budget=Budget(trials=trials),
        confirm=confirm or Confirm(top=0),
        compare=Compare.ONE_AT_A_TIME,
        seed=seed,
    )


def test_the_search_finds_the_optimum_where_one_at_a_time_does_not(tmp_path: Path) -> None:
    result = Tuner("syn", section(24), tmp_path, Synthetic(), lambda _e: None).run()
    assert len(result.trials) == 24
    assert 22 <= len(result.sweep) <= 24  # the combination may be a point it measured
    assert result.trials[0].role is Role.DEFAULT
    assert result.trials[0].measurement.params == {
        "config.memtable_heap_space": 64,
        "config.concurrent_compactors": 1,
        "config.memtable_cleanup_threshold": 0.11,
        "table.compaction": "STCS",
    }
    assert result.best.objective is not None
    assert result.best.objective >= 0.9 * OPTIMUM
    best = result.best.params
    assert int(best["config.concurrent_compactors"] or 0) >= 6  # the interacting corner
    assert int(best["config.memtable_heap_space"] or 0) >= 512
    # each knob alone only loses against the default: the sweep's "best" stays there
    assert result.sweep_best is not None
    assert result.sweep_best.objective is not None
    assert result.sweep_best.objective < 1.05 * DEFAULT_RATE
    assert all(t.feasible for t in result.trials[:1])


def test_the_same_seed_gives_the_same_search(tmp_path: Path) -> None:
    for name in "abc":
        (tmp_path / name).mkdir()
    first = Tuner("syn", section(8), tmp_path / "a", Synthetic(), lambda _e: None).run()
    second = Tuner("syn", section(8), tmp_path / "b", Synthetic(), lambda _e: None).run()
    params = [[t.measurement.params for t in r.trials] for r in (first, second)]
    assert params[0] == params[1]
    other = Tuner("syn", section(8, seed=7), tmp_path / "c", Synthetic(), lambda _e: None).run()
    assert [t.measurement.params for t in other.trials] != params[0]


def test_an_interrupted_study_resumes_and_asks_the_interrupted_trial_again(
    tmp_path: Path,
) -> None:
    tune = section(6)
    broken = Synthetic(interrupt_at=3)
    with pytest.raises(KeyboardInterrupt):
        Tuner("syn", tune, tmp_path, broken, lambda _e: None).run()
    interrupted = broken.calls[-1]
    again = Synthetic()
    seen: list[TuneEvent] = []
    result = Tuner("syn", tune, tmp_path, again, seen.append).run()
    assert again.calls[0][1] == interrupted[1]  # the same configuration, asked first
    assert again.calls[0][0] == "s003"  # as a new trial: s002 stays FAIL in the study
    labels = [t.measurement.label for t in result.trials]
    assert labels == ["s000", "s001", "s003", "s004", "s005", "s006"]
    assert sum(1 for t in result.trials if t.role is Role.DEFAULT) == 1
    study = optuna.load_study(study_name=STUDY_NAME, storage=storage_url(tmp_path))
    states = [t.state.name for t in study.trials]
    assert states == ["COMPLETE", "COMPLETE", "FAIL", *["COMPLETE"] * 4]
    assert "resuming: 2 trial(s) finished, 1 interrupted" in str(seen[0])


def test_confirmation_and_the_files_of_a_run(tmp_path: Path) -> None:
    tune = section(12, confirm=Confirm(top=2, repetitions=3))
    evaluator = Synthetic()
    told: list[TuneEvent] = []
    result = Tuner("syn", tune, tmp_path, evaluator, told.append).run()
    confirm_labels = [label for label, _ in evaluator.calls if label.startswith("confirm")]
    # 2 search candidates + the sweep's best, ABAB: d c1 c2 c3, three rounds
    assert confirm_labels[:4] == ["confirm-d-1", "confirm-c1-1", "confirm-c2-1", "confirm-c3-1"]
    assert len(confirm_labels) == 12
    assert [c.source for c in result.confirmations] == [Role.SEARCH, Role.SEARCH, Role.SWEEP]
    top = result.confirmations[0]
    assert top.verdict is Verdict.GAIN
    assert top.gain_ci_pct is not None
    assert top.gain_ci_pct[0] > 0
    assert result.recommendation.verdict is Verdict.GAIN
    assert result.best.ci is not None
    assert result.default.ci is not None
    assert result.best.ci[0] > result.default.ci[1]
    assert result.best.trials == top.candidate.labels
    assert any(isinstance(e, Told) for e in told)
    paths = write_outputs(result, tmp_path, "keyspace1")
    report = write_report(result, tmp_path)
    data = json.loads((tmp_path / "tuning.json").read_text())
    assert {"best", "default", "trials"} <= set(data)
    assert set(data["best"]) >= {"params", "objective", "ci"}
    assert data["best"]["params"] == result.recommendation.params
    flags = (tmp_path / "recommended.flags").read_text()
    assert flags.startswith("--set memtable_heap_space=")
    assert "MiB" in flags
    fragment = (tmp_path / "recommended.yaml").read_text()
    assert "significant gain" in fragment
    assert "concurrent_compactors:" in fragment
    html = report.read_text()
    for title in ("optimisation history", "parallel coordinates", "parameter importance"):
        assert title in html
    assert "one-at-a-time best" in html
    assert "<script src" not in html
    assert [p.name for p in paths] == ["tuning.json", "recommended.yaml", "recommended.flags"]
    assert result.importance
    assert result.importance_method.startswith("PED-ANOVA")


class StopsAt(Synthetic):
    """The synthetic evaluator, interrupted (Ctrl-C) when it is asked for ``label``."""

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def evaluate(self, params: Mapping[str, ParamValue], label: str) -> Measurement:
        if label == self.label:
            raise KeyboardInterrupt
        return super().evaluate(params, label)


def test_a_resumed_run_measures_no_sweep_or_confirmation_trial_twice(tmp_path: Path) -> None:
    tune = section(6, confirm=Confirm(top=1, repetitions=2))
    broken = StopsAt("confirm-d-2")
    with pytest.raises(KeyboardInterrupt):
        Tuner("syn", tune, tmp_path, broken, lambda _e: None).run()
    before = [label for label, _ in broken.calls]
    assert before[-1].startswith("confirm-c")  # the first round was measured
    again = Synthetic()
    result = Tuner("syn", tune, tmp_path, again, lambda _e: None).run()
    measured = [label for label, _ in again.calls]
    assert measured[0] == "confirm-d-2"  # nothing of the search, the sweep or round 1
    assert all(label.endswith("-2") for label in measured)
    assert {m.label for m in result.confirm_trials} == {*measured, *before[-len(measured) :]}


def test_a_pareto_study_reports_its_front(tmp_path: Path) -> None:
    tune = section(8, confirm=Confirm(top=1, repetitions=2)).model_copy(
        update={"objective": Objective(goal=Goal.PARETO), "compare": None}
    )
    result = Tuner("syn", tune, tmp_path, Synthetic(), lambda _e: None).run()
    assert result.direction == "maximize"
    assert result.metric == "op_rate"
    assert result.pareto
    rates = [t.values[0] for t in result.pareto]
    assert rates == sorted(rates, reverse=True)  # the front, by op rate
    assert result.confirmations[0].label == result.pareto[0].measurement.label
    html = write_report(result, tmp_path).read_text()
    assert "optimisation history" in html
