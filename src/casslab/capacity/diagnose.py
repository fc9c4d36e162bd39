"""Why a capacity problem has no placement: which requirement cannot be met.

Two steps. First each tenant alone on the empty machines, per VM type, in closed form:
the machines that can hold a node of the type (against rf), the nodes its data needs
(eq. 12) and the counts whose throughput meets its minimum (eq. 11) against what the
machines hold. A tenant that fits no type even alone is the answer. When every tenant
fits alone, they conflict: each constraint family is dropped in turn (one feasibility
solve each) and the families whose removal makes a placement exist are named, with the
tenants whose removal does the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from casslab.capacity.deadline import Deadline, OutOfTime
from casslab.capacity.plan_model import Family, build_model, capacity
from casslab.capacity.plan_solve import SolveStatus, solve_model
from casslab.capacity.problem import PlanProblem
from casslab.capacity.throughput import allowed_counts, nodes_for_data, throughput_at


@dataclass(frozen=True)
class Alone:
    """One tenant on one VM type, alone on the empty machines."""

    vm_type: str
    hosts: int  # machines that hold at least one node of the type
    most: int  # nodes of the type all the machines hold
    for_data: int  # eq. 12: ceil(rf * data / heap)
    fewest: int | None  # the fewest nodes meeting every requirement alone; None: none do
    problem: str  # why none do ("" when some do)


def _runs_text(runs: list[tuple[int, int]]) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)


def alone(problem: PlanProblem, tenant: str, vm_type: str) -> Alone:
    """Can ``tenant`` run on ``vm_type`` with the machines to itself, and with how few nodes."""
    spec = problem.vm_types[vm_type]
    need = problem.tenants[tenant]
    bounds = [capacity(problem, vm_type, m.name, frozenset()) for m in problem.machines]
    hosts = sum(1 for b in bounds if b > 0)
    most = sum(bounds)
    for_data = nodes_for_data(need.rf, need.data_gib, spec.heap_gib)
    low = max(for_data, need.rf)
    points = problem.points(tenant, vm_type)
    runs = allowed_counts(points, need.min_ops, most)
    fits = [n for a, b in runs for n in range(max(a, low), b + 1)]
    fewest = fits[0] if fits and hosts >= need.rf else None
    size = f"{vm_type} ({spec.cpus:g} CPU, {spec.memory_gib:g} GiB)"
    problems = []
    if hosts < need.rf:
        problems.append(
            f"only {hosts} machine(s) can hold a {size} node, rf {need.rf} needs {need.rf}"
        )
    if for_data > most:
        problems.append(
            f"its data needs {for_data} nodes (rf {need.rf} x {need.data_gib:g} GiB / "
            f"{spec.heap_gib:g} GiB heap) but the machines hold at most {most}"
        )
    elif not runs:
        best = max(range(1, most + 1), key=lambda n: throughput_at(points, n), default=0)
        reached = float(throughput_at(points, best)) if best else 0.0
        where = f"all {most} nodes" if best == most else f"{best} nodes; the machines hold {most}"
        problems.append(
            f"reaches at most {reached:.0f} ops/s (on {where}), below the minimum {need.min_ops:g}"
        )
    elif not fits:
        problems.append(
            f"meets {need.min_ops:g} ops/s only with {_runs_text(runs)} nodes, fewer than the "
            f"{low} its data and replicas need"
        )
    return Alone(vm_type, hosts, most, for_data, fewest, "; ".join(problems))


def _tenant_reasons(problem: PlanProblem) -> tuple[list[str], dict[str, list[Alone]]]:
    reasons = []
    fitting: dict[str, list[Alone]] = {}
    for name, tenant in problem.tenants.items():
        options = [alone(problem, name, j) for j in problem.types_of(name)]
        fitting[name] = [o for o in options if o.fewest is not None]
        if not fitting[name]:
            each = "; ".join(f"{o.vm_type}: {o.problem}" for o in options)
            reasons.append(
                f"tenant {name} ({tenant.workload}, {tenant.min_ops:g} ops/s, rf {tenant.rf}, "
                f"{tenant.data_gib:g} GiB) fits no VM type even alone on the "
                f"{len(problem.machines)} machines: {each}"
            )
    return reasons, fitting


def _least(problem: PlanProblem, fitting: dict[str, list[Alone]], resource: str) -> str | None:
    """What the tenants need of ``resource`` ("cpus" or "memory_gib") at least (each on
    its most frugal type, with the fewest nodes that meet its requirements alone), when
    that is more than the machines have; None when it is not."""
    total_need = 0.0
    parts = []
    for tenant, options in fitting.items():
        amounts = [
            (getattr(problem.vm_types[o.vm_type], resource) * (o.fewest or 0), o) for o in options
        ]
        amount, option = min(amounts, key=lambda pair: pair[0])
        total_need += amount
        parts.append(f"{tenant} {option.fewest} x {option.vm_type}")
    have = sum(getattr(m, resource) for m in problem.machines)
    if total_need <= have:
        return None
    label, unit = ("CPU (eq. 15)", "CPUs") if resource == "cpus" else ("memory (eq. 16)", "GiB")
    return (
        f"{label}: the tenants need at least {total_need:g} {unit} together "
        f"({', '.join(parts)}), the machines have {have:g}"
    )


def _feasible(
    problem: PlanProblem,
    drop: frozenset[Family],
    time_limit_s: float,
    deadline: Deadline | None = None,
) -> bool | None:
    """True or False; None when the solver could not tell within the time limit (or the
    plan's ``deadline`` has passed)."""
    if deadline is not None:
        time_limit_s = min(time_limit_s, deadline.left_s())
        if time_limit_s <= 0:
            return None
    try:
        model = build_model(problem, drop, minimise_power=False, deadline=deadline)
    except OutOfTime:
        return None
    solution = solve_model(model, time_limit_s)
    if solution.status is SolveStatus.TIME_LIMIT:
        return True if solution.values is not None else None
    return solution.status is SolveStatus.OPTIMAL


_FAMILY_NAMES = {
    Family.THROUGHPUT: "the minimum throughput (eq. 11)",
    Family.DATA: "the nodes for the data (eq. 12)",
    Family.CPU: "the machines' CPUs (eq. 15)",
    Family.MEMORY: "the machines' memory (eq. 16)",
    Family.REPLICAS: "the replicas on rf distinct machines (eq. 17)",
}


def diagnose(
    problem: PlanProblem, time_limit_s: float, deadline: Deadline | None = None
) -> tuple[str, ...]:
    """Why ``problem`` (known infeasible) has no placement, one reason per line; each
    solve within ``time_limit_s`` and all of them before ``deadline``, if given (what is
    left is undetermined)."""
    reasons, fitting = _tenant_reasons(problem)
    if reasons:
        return tuple(reasons)
    lines = ["every tenant fits alone on the machines, but not all together"]
    lines += [f"  {line}" for r in ("cpus", "memory_gib") if (line := _least(problem, fitting, r))]
    culprits = []
    undetermined = []
    for family in Family:
        verdict = _feasible(problem, frozenset({family}), time_limit_s, deadline)
        if verdict:
            culprits.append(_FAMILY_NAMES[family])
        elif verdict is None:
            undetermined.append(_FAMILY_NAMES[family])
    if culprits:
        lines.append("a placement exists without any one of: " + "; ".join(culprits))
    else:
        lines.append(
            "no placement exists without any single one of the requirements (throughput, "
            "data, CPU, memory, replicas): several conflict together"
        )
    if len(problem.tenants) > 1:
        spare = [
            name
            for name in problem.tenants
            if _feasible(problem.without_tenant(name), frozenset(), time_limit_s, deadline)
        ]
        if spare:
            lines.append("the others fit without tenant " + ", or without tenant ".join(spare))
    if undetermined:
        lines.append(
            f"undetermined within the {time_limit_s:g} s limit: whether a placement exists "
            f"without {'; '.join(undetermined)}"
        )
    return tuple(lines)
