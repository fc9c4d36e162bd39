"""Run order and restarts: seeded rounds, sequential cells, restart reasons, resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.design.plan_records import Cell, RestartReason
from casslab.experiment.design.trial_order import clusters_and_restarts, pending, trial_order
from casslab.experiment.file import experiment_loader
from casslab.experiment.file.experiment_model import Experiment, Order, OrderKind


def experiment(**fields: Any) -> Experiment:
    data: dict[str, Any] = {"name": "t", "workload": "mixed ratio(write=9,read=1)"}
    data.update(fields)
    return Experiment.model_validate(data)


# ---------------------------------------------------------------- order


def _three_by_two(seed: int, kind: str = "randomized") -> Experiment:
    return experiment(
        factors={"table.compaction": ["STCS", "LCS", "UCS"], "threads": [8, 16]},
        iterations=4,
        order={"kind": kind, "seed": seed},
    )


def test_randomized_order_is_reproducible() -> None:
    first = [t.trial_id for t in expand(_three_by_two(7)).trials]
    again = [t.trial_id for t in expand(_three_by_two(7)).trials]
    other = [t.trial_id for t in expand(_three_by_two(8)).trials]
    assert first == again
    assert first != other
    assert sorted(first) == sorted(other)


def test_randomized_order_runs_every_cell_once_per_round() -> None:
    plan = expand(_three_by_two(7))
    rounds = [plan.trials[i : i + 6] for i in range(0, 24, 6)]
    for number, trials in enumerate(rounds, start=1):
        assert {t.iteration for t in trials} == {number}
        assert {t.cell_id for t in trials} == {c.id for c in plan.cells}
    orders = {tuple(t.cell_id for t in trials) for trials in rounds}
    assert len(orders) > 1  # the rounds are shuffled independently
    assert [t.position for t in plan.trials] == list(range(24))


def test_sequential_order_runs_each_cell_in_a_row() -> None:
    plan = expand(_three_by_two(7, "sequential"))
    assert [t.trial_id for t in plan.trials[:5]] == [
        "compaction=STCS,threads=8/1",
        "compaction=STCS,threads=8/2",
        "compaction=STCS,threads=8/3",
        "compaction=STCS,threads=8/4",
        "compaction=STCS,threads=16/1",
    ]


# ---------------------------------------------------------------- restarts and resume


def test_restart_only_when_configuration_changes() -> None:
    plan = expand(
        experiment(
            factors={
                "config.concurrent_compactors": [1, 4],
                "table.compaction": ["STCS", "LCS"],
            },
            iterations=2,
            order="sequential",
        )
    )
    flags = [(t.cell_id, t.iteration, t.restart_reason) for t in plan.trials]
    assert flags == [
        ("concurrent_compactors=1,compaction=STCS", 1, RestartReason.FIRST),
        ("concurrent_compactors=1,compaction=STCS", 2, None),
        ("concurrent_compactors=1,compaction=LCS", 1, None),  # a table option: no restart
        ("concurrent_compactors=1,compaction=LCS", 2, None),
        ("concurrent_compactors=4,compaction=STCS", 1, RestartReason.CONFIG),
        ("concurrent_compactors=4,compaction=STCS", 2, None),
        ("concurrent_compactors=4,compaction=LCS", 1, None),
        ("concurrent_compactors=4,compaction=LCS", 2, None),
    ]
    assert [t.restart for t in plan.trials] == [t[2] is not None for t in flags]


def test_node_count_change_restarts() -> None:
    plan = expand(experiment(factors={"nodes": [1, 3]}, iterations=1, order="sequential"))
    assert [(t.nodes, t.restart_reason) for t in plan.trials] == [
        (1, RestartReason.FIRST),
        (3, RestartReason.NODES),
    ]


def test_pending_skips_finished_trials_and_restarts_the_first_left() -> None:
    plan = expand(_three_by_two(3))
    finished = {t.trial_id for t in plan.trials[:10]}
    left = pending(plan, finished)
    assert [t.trial_id for t in left] == [t.trial_id for t in plan.trials[10:]]
    assert left[0].restart_reason is RestartReason.FIRST
    assert [t.position for t in left] == list(range(14))
    assert pending(plan, []) == plan.trials
    assert pending(plan, [t.trial_id for t in plan.trials]) == ()


def _cells(*ids: str) -> list[Cell]:
    return [Cell(id=cell_id, levels={}, labels={}) for cell_id in ids]


def test_trial_order_on_literal_cells() -> None:
    cells = _cells("a", "b", "c")
    sequential = trial_order(cells, 2, Order(kind=OrderKind.SEQUENTIAL))
    assert [(c.id, i) for c, i in sequential] == [
        ("a", 1),
        ("a", 2),
        ("b", 1),
        ("b", 2),
        ("c", 1),
        ("c", 2),
    ]
    randomized = trial_order(cells, 3, Order(kind=OrderKind.RANDOMIZED, seed=11))
    assert [i for _, i in randomized] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    for start in (0, 3, 6):
        assert sorted(c.id for c, _ in randomized[start : start + 3]) == ["a", "b", "c"]
    # the draw depends on the cell ids and the seed only, not on the order cells come in
    reversed_cells = trial_order(cells[::-1], 3, Order(kind=OrderKind.RANDOMIZED, seed=11))
    assert [(c.id, i) for c, i in reversed_cells] == [(c.id, i) for c, i in randomized]


# ---------------------------------------------------------------- clusters a run starts

_EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"


@pytest.mark.parametrize("name", ["upgrade-under-load.yaml", "upgrade-under-load-scaled.yaml"])
def test_reshaping_operations_start_a_cluster_per_trial(name: str) -> None:
    """The runner forgets its cluster after each trial of a reshaping operation (upgrade,
    add-node, ...): the plan counts one cluster per trial, not the one its setups share."""
    loaded = experiment_loader.load(_EXPERIMENTS / name)
    assert any(f.of_kind.reshapes_cluster for f in loaded.faults)
    trials = expand(loaded).trials
    assert clusters_and_restarts(trials, reshapes=False)[0] == 1  # what the setups alone say
    assert clusters_and_restarts(trials, reshapes=True) == (len(trials), 0)


def test_without_reshaping_the_setups_decide() -> None:
    trials = expand(
        experiment(
            factors={"cluster.heap": ["1G", "2G"]}, iterations=2, order={"kind": "sequential"}
        )
    ).trials
    assert clusters_and_restarts(trials, reshapes=False) == (2, 0)
