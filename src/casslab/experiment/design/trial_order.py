"""The run order of a plan's trials, and where the nodes must (re)start (pure).

Order: ``sequential`` runs the cells in design order, all iterations of a cell in a row
(fewest restarts). ``randomized`` runs round after round; each round runs every cell
once, in an order drawn from the seed (a randomized complete block design: drift over
time falls on every cell alike). The draw sorts cells by SHA-256 of ``seed:round:cell``,
so the same file and seed give the same order on any machine and Python version.

Restarts: each trial is flagged against the one before it, by the rule the runner follows
too (:func:`casslab.experiment.design.cluster_setup.cluster_action`). :func:`pending` recomputes
the flags over the trials a resumed run has left.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from casslab.experiment.design.cluster_setup import (
    ClusterAction,
    ClusterSetup,
    cluster_action,
    shape_change,
)
from casslab.experiment.design.plan_records import Cell, Plan, RestartReason, Trial
from casslab.experiment.file.experiment_model import Order, OrderKind


def _draw(seed: int, round_number: int, cell_id: str) -> str:
    return hashlib.sha256(f"{seed}:{round_number}:{cell_id}".encode()).hexdigest()


def round_order(cells: Sequence[Cell], round_number: int, order: Order) -> list[Cell]:
    """The cells of one round: shuffled by the seed when randomized, else design order.
    Rounds an adaptive run adds after the planned ones are drawn alike."""
    if order.kind is OrderKind.SEQUENTIAL:
        return list(cells)
    return sorted(cells, key=lambda cell: _draw(order.seed, round_number, cell.id))


def trial_order(cells: Sequence[Cell], iterations: int, order: Order) -> list[tuple[Cell, int]]:
    """(cell, iteration) pairs in run order. See the module docstring."""
    if order.kind is OrderKind.SEQUENTIAL:
        return [(cell, i) for cell in cells for i in range(1, iterations + 1)]
    out: list[tuple[Cell, int]] = []
    for iteration in range(1, iterations + 1):
        out += [(cell, iteration) for cell in round_order(cells, iteration, order)]
    return out


def _restart_reason(current: ClusterSetup | None, wanted: ClusterSetup) -> RestartReason | None:
    action = cluster_action(current, wanted)
    if action is ClusterAction.START:
        return RestartReason.FIRST
    if action is ClusterAction.RESTART:
        return RestartReason.CONFIG
    if action is ClusterAction.RECREATE and current is not None:
        return RestartReason(shape_change(current, wanted) or RestartReason.NODES)
    return None


def with_restarts(trials: Sequence[Trial]) -> tuple[Trial, ...]:
    """``trials`` renumbered from 0, each flagged for a restart against the one before it."""
    out: list[Trial] = []
    previous: Trial | None = None
    for position, trial in enumerate(trials):
        reason = _restart_reason(previous.setup if previous else None, trial.setup)
        update = {"position": position, "restart": reason is not None, "restart_reason": reason}
        out.append(trial.model_copy(update=update))
        previous = trial
    return tuple(out)


def pending(plan: Plan, finished: Iterable[str]) -> tuple[Trial, ...]:
    """The trials still to run, in plan order, without those whose id is in ``finished``.

    Positions and restart flags are recomputed over what remains: the first remaining
    trial always starts the nodes.
    """
    done = set(finished)
    return with_restarts([t for t in plan.trials if t.trial_id not in done])


def clusters_and_restarts(trials: Sequence[Trial], reshapes: bool) -> tuple[int, int]:
    """(clusters created, restarts) a run of ``trials`` makes. ``reshapes``: the experiment
    has an operation that reshapes the cluster (upgrade, add-node, decommission, replace);
    the runner then builds a new cluster for every trial after one, whatever its setup."""
    if reshapes:
        return len(trials), 0
    reasons = [t.restart_reason for t in trials if t.restart_reason is not None]
    restarts = sum(r is RestartReason.CONFIG for r in reasons)
    return len(reasons) - restarts, restarts
