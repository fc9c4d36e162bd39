"""The answer to a capacity problem, as a typed record (what ``casslab capacity plan
--json`` prints), and how a placement becomes one.

``machines`` lists only the machines in use (a machine with no virtual node is off and
draws nothing, eq. 10), in the problem's order; ``tenants`` lists every tenant. An
infeasible problem has neither, and ``reasons`` says which requirement cannot be met.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Final, Literal

from casslab.capacity.problem import PlanProblem
from casslab.capacity.throughput import throughput_at
from casslab.record import Record

SCHEMA_VERSION: Final[Literal[1]] = 1


class PlanStatus(enum.StrEnum):
    """How the solve ended."""

    OPTIMAL = "optimal"  # a placement of least power, proven
    INFEASIBLE = "infeasible"  # no placement meets every requirement; see ``reasons``
    TIME_LIMIT = "time_limit"  # the time limit came first: the best placement found, if any


class TenantPlan(Record):
    """One tenant's virtual datacentre: its VM type, size and placement."""

    vm_type: str
    vnodes: int
    placement: dict[str, int]  # machine name -> virtual nodes on it (only machines with some)
    throughput_ops: float  # t(vnodes) of the model, eq. 6-7


class MachineUse(Record):
    """What one machine in use carries and draws."""

    cpus_used: float
    memory_gib_used: float
    power_w: float  # eq. 8: k Pmax + (1 - k) Pmax U, U = cpus_used / cpus


class PlanAnswer(Record):
    """The planner's (or the enumerator's) answer to a problem."""

    schema_version: Literal[1] = SCHEMA_VERSION
    status: PlanStatus
    power_w: float | None  # eq. 10, the objective; None without a placement
    tenants: dict[str, TenantPlan]
    machines: dict[str, MachineUse]
    reasons: tuple[str, ...] = ()  # why infeasible, or why not proven optimal
    solve_time_s: float = 0.0
    bound_w: float | None = None  # time_limit: the least power HiGHS proved any placement needs
    gap: float | None = None  # time_limit: (power_w - bound_w) / power_w, HiGHS's relative gap


Placement = Mapping[str, tuple[str, Mapping[str, int]]]
"""tenant -> (VM type, machine -> virtual nodes)."""


def answer_from_placement(
    problem: PlanProblem,
    placement: Placement,
    status: PlanStatus = PlanStatus.OPTIMAL,
    *,
    reasons: tuple[str, ...] = (),
    solve_time_s: float = 0.0,
    bound_w: float | None = None,
    gap: float | None = None,
) -> PlanAnswer:
    """The answer whose tenants are placed as ``placement`` says: each machine's CPUs,
    memory and power (eq. 8, 9), and the total (eq. 10)."""
    tenants: dict[str, TenantPlan] = {}
    cpus = dict.fromkeys((m.name for m in problem.machines), 0.0)
    memory = dict(cpus)
    for name in problem.tenants:
        vm_type, counts = placement[name]
        kept = {host: n for host, n in counts.items() if n > 0}
        vnodes = sum(kept.values())
        spec = problem.vm_types[vm_type]
        for host, n in kept.items():
            cpus[host] += n * spec.cpus
            memory[host] += n * spec.memory_gib
        tenants[name] = TenantPlan(
            vm_type=vm_type,
            vnodes=vnodes,
            placement={m.name: kept[m.name] for m in problem.machines if m.name in kept},
            throughput_ops=float(throughput_at(problem.points(name, vm_type), vnodes)),
        )
    machines: dict[str, MachineUse] = {}
    for machine in problem.machines:
        used = cpus[machine.name]
        if used <= 0:
            continue
        utilisation = used / machine.cpus  # eq. 9
        power = machine.k * machine.pmax_w + (1 - machine.k) * machine.pmax_w * utilisation
        machines[machine.name] = MachineUse(
            cpus_used=round(used, 9),
            memory_gib_used=round(memory[machine.name], 9),
            power_w=round(power, 6),
        )
    return PlanAnswer(
        status=status,
        power_w=round(sum(m.power_w for m in machines.values()), 6),
        tenants=tenants,
        machines=machines,
        reasons=reasons,
        solve_time_s=solve_time_s,
        bound_w=bound_w,
        gap=gap,
    )


def no_placement(status: PlanStatus, reasons: tuple[str, ...], solve_time_s: float) -> PlanAnswer:
    """An answer without a placement (infeasible, or nothing found in time)."""
    return PlanAnswer(
        status=status,
        power_w=None,
        tenants={},
        machines={},
        reasons=reasons,
        solve_time_s=solve_time_s,
    )
