"""``casslab capacity plan``: the placement of least power that meets every tenant's
requirements (seed 003's adaptation model, :mod:`casslab.capacity.plan_model`), solved by
HiGHS (:mod:`casslab.capacity.plan_solve`); when there is none, the requirement that
cannot be met (:mod:`casslab.capacity.diagnose`)."""

from __future__ import annotations

from casslab.capacity.answer import (
    PlanAnswer,
    PlanStatus,
    answer_from_placement,
    no_placement,
)
from casslab.capacity.deadline import Deadline, OutOfTime
from casslab.capacity.diagnose import diagnose
from casslab.capacity.plan_model import build_model
from casslab.capacity.plan_solve import (
    DEFAULT_TIME_LIMIT_S,
    MIN_SOLVE_S,
    SolveStatus,
    solve_model,
)
from casslab.capacity.problem import PlanProblem


def _placement(
    problem: PlanProblem, values: dict[tuple[str, ...], int]
) -> dict[str, tuple[str, dict[str, int]]]:
    """tenant -> (its type, machine -> nodes), read from the solver's x and y."""
    placement: dict[str, tuple[str, dict[str, int]]] = {}
    for tenant in problem.tenants:
        chosen = [j for j in problem.types_of(tenant) if values.get(("y", tenant, j), 0) == 1]
        if len(chosen) != 1:
            raise AssertionError(f"plan: tenant {tenant} has types {chosen} (eq. 13 broken)")
        vm_type = chosen[0]
        counts = {
            machine.name: values.get(("x", tenant, vm_type, machine.name), 0)
            for machine in problem.machines
        }
        placement[tenant] = (vm_type, counts)
    return placement


def _out_of_time(limit_s: float, why: str, elapsed_s: float) -> PlanAnswer:
    reason = (
        f"no feasible placement found within the time limit of {limit_s:g} s ({why}); "
        "raise --time-limit"
    )
    return no_placement(PlanStatus.TIME_LIMIT, (reason,), elapsed_s)


def plan(problem: PlanProblem, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> PlanAnswer:
    """The optimal placement of ``problem``'s tenants, or why there is none.

    ``time_limit_s`` bounds the whole plan: building the model, solving it and diagnosing
    an infeasible one. When it runs out first the answer's status is ``time_limit`` with
    the best placement found and the best bound proved (the gap), or none.
    """
    deadline = Deadline(time_limit_s)
    try:
        model = build_model(problem, deadline=deadline)
    except OutOfTime as stop:
        why = (
            f"building the model took it all: {stop.done} of {stop.total} tenants, "
            f"{stop.variables} variables so far"
        )
        return _out_of_time(time_limit_s, why, deadline.elapsed_s())
    solution = solve_model(model, max(MIN_SOLVE_S, deadline.left_s()))
    if solution.status is SolveStatus.INFEASIBLE:
        reasons = diagnose(problem, time_limit_s, deadline)
        return no_placement(PlanStatus.INFEASIBLE, reasons, deadline.elapsed_s())
    if solution.values is None:
        why = f"{len(model.keys)} variables; the solve took {solution.time_s:.1f} s"
        return _out_of_time(time_limit_s, why, deadline.elapsed_s())
    placement = _placement(problem, solution.values)
    if solution.status is SolveStatus.OPTIMAL:
        return answer_from_placement(problem, placement, solve_time_s=solution.time_s)
    proof = ""
    if solution.bound is not None:
        gap = f", gap {100 * solution.gap:.2f}%" if solution.gap is not None else ""
        proof = f"; the best bound proved is {solution.bound:.2f} W{gap}"
    reason = (
        f"the time limit of {time_limit_s:g} s ran out before this placement was proven "
        f"optimal{proof}; raise --time-limit for a proof"
    )
    return answer_from_placement(
        problem,
        placement,
        PlanStatus.TIME_LIMIT,
        reasons=(reason,),
        solve_time_s=solution.time_s,
        bound_w=solution.bound,
        gap=solution.gap,
    )
