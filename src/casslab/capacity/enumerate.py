"""Brute force for small capacity problems: every placement, the one of least power.

For each tenant, every VM type offered to it and every vector of node counts per
machine (each count from 0 to what the machine holds of the type alone) is listed, and
kept when it meets the tenant's own requirements: nodes on at least rf machines, enough
heap for rf copies of the data, throughput t(n) at least the minimum. Then every
combination of one kept vector per tenant is tried against each machine's CPUs and
memory (depth first, dropping a partial combination as soon as a machine overflows),
and the power of each is computed. No linearisation, no solver: a slow, obvious
reference for the MILP of :mod:`casslab.capacity.plan_model`.
"""

from __future__ import annotations

import itertools
import math

from casslab.capacity.answer import (
    PlanAnswer,
    PlanStatus,
    answer_from_placement,
    no_placement,
)
from casslab.capacity.problem import PlanProblem
from casslab.capacity.throughput import exact, throughput_at

Option = tuple[str, tuple[int, ...]]  # (VM type, nodes per machine in problem order)

MAX_VECTORS = 200_000


def _options(problem: PlanProblem, tenant: str) -> list[Option]:
    need = problem.tenants[tenant]
    options: list[Option] = []
    for vm_type in problem.types_of(tenant):
        spec = problem.vm_types[vm_type]
        ranges = []
        for machine in problem.machines:
            fits = min(
                math.floor(exact(machine.cpus) / exact(spec.cpus)),
                math.floor(exact(machine.memory_gib) / exact(spec.memory_gib)),
            )
            ranges.append(range(fits + 1))
        size = math.prod(len(r) for r in ranges)
        if size > MAX_VECTORS:
            raise ValueError(f"enumerate: {size} count vectors for {tenant} on {vm_type}: too many")
        points = problem.points(tenant, vm_type)
        heap = exact(spec.heap_gib)
        data = need.rf * exact(need.data_gib)
        floor = exact(need.min_ops)
        most = sum(len(r) - 1 for r in ranges)
        meets = [n * heap >= data and throughput_at(points, n) >= floor for n in range(most + 1)]
        for counts in itertools.product(*ranges):
            if meets[sum(counts)] and sum(1 for n in counts if n > 0) >= need.rf:
                options.append((vm_type, counts))
    return options


def enumerate_optimum(problem: PlanProblem) -> PlanAnswer:
    """The placement of least power by trying every one (small problems only: raises
    ValueError when a tenant has more than ``MAX_VECTORS`` count vectors on a type).

    Capacities are compared in floating point with a tolerance of 1e-9; a partial
    combination already drawing at least the best power found is not extended (power only
    grows as tenants are added)."""
    tenants = list(problem.tenants)
    machines = problem.machines
    options = []
    for tenant in tenants:
        listed = []
        for vm_type, counts in _options(problem, tenant):
            spec = problem.vm_types[vm_type]
            cpus = tuple(n * spec.cpus for n in counts)
            memory = tuple(n * spec.memory_gib for n in counts)
            listed.append(((vm_type, counts), cpus, memory))
        options.append(listed)
    best: tuple[float, list[Option]] | None = None

    def power(cpus: list[float]) -> float:
        return sum(
            m.k * m.pmax_w + (1 - m.k) * m.pmax_w * used / m.cpus
            for m, used in zip(machines, cpus, strict=True)
            if used > 0
        )

    def walk(depth: int, cpus: list[float], memory: list[float], chosen: list[Option]) -> None:
        nonlocal best
        drawn = power(cpus)
        if best is not None and drawn >= best[0] - 1e-9:
            return
        if depth == len(tenants):
            best = (drawn, list(chosen))
            return
        for option, option_cpus, option_memory in options[depth]:
            new_cpus = [u + c for u, c in zip(cpus, option_cpus, strict=True)]
            new_memory = [u + m for u, m in zip(memory, option_memory, strict=True)]
            if any(u > m.cpus + 1e-9 for u, m in zip(new_cpus, machines, strict=True)):
                continue
            if any(u > m.memory_gib + 1e-9 for u, m in zip(new_memory, machines, strict=True)):
                continue
            chosen.append(option)
            walk(depth + 1, new_cpus, new_memory, chosen)
            chosen.pop()

    walk(0, [0.0] * len(machines), [0.0] * len(machines), [])
    if best is None:
        return no_placement(PlanStatus.INFEASIBLE, ("no placement (enumerated)",), 0.0)
    placement = {
        tenant: (vm_type, {m.name: n for m, n in zip(machines, counts, strict=True)})
        for tenant, (vm_type, counts) in zip(tenants, best[1], strict=True)
    }
    return answer_from_placement(problem, placement)
