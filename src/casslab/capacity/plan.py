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
from casslab.capacity.diagnose import diagnose
from casslab.capacity.plan_model import build_model
from casslab.capacity.plan_solve import DEFAULT_TIME_LIMIT_S, SolveStatus, solve_model
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


def plan(problem: PlanProblem, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> PlanAnswer:
    """The optimal placement of ``problem``'s tenants, or why there is none.

    ``time_limit_s`` bounds the solve (and each solve of the diagnosis); when it runs
    out first the answer's status is ``time_limit`` with the best placement found, if any.
    """
    solution = solve_model(build_model(problem), time_limit_s)
    if solution.status is SolveStatus.INFEASIBLE:
        reasons = diagnose(problem, time_limit_s)
        return no_placement(PlanStatus.INFEASIBLE, reasons, solution.time_s)
    if solution.values is None:
        reason = (
            f"no placement found within the time limit of {time_limit_s:g} s (the solve took "
            f"{solution.time_s:.1f} s); raise --time-limit"
        )
        return no_placement(PlanStatus.TIME_LIMIT, (reason,), solution.time_s)
    placement = _placement(problem, solution.values)
    if solution.status is SolveStatus.OPTIMAL:
        return answer_from_placement(problem, placement, solve_time_s=solution.time_s)
    reason = (
        f"the time limit of {time_limit_s:g} s ran out before this placement was proven "
        "optimal; raise --time-limit for a proof"
    )
    return answer_from_placement(
        problem,
        placement,
        PlanStatus.TIME_LIMIT,
        reasons=(reason,),
        solve_time_s=solution.time_s,
    )
