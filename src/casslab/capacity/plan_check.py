"""An independent check of a capacity plan: every requirement of the problem, and every
figure the answer reports, recomputed from the problem and the placement alone.

It shares no code with the model builder (:mod:`casslab.capacity.plan_model`) nor with
its throughput arithmetic (:mod:`casslab.capacity.throughput`): t(n) is interpolated
again here in floating point, with a relative tolerance, so a slip in either shows as a
disagreement. Used by the tests on every answer they get; pure.
"""

from __future__ import annotations

from collections.abc import Mapping

from casslab.capacity.answer import PlanAnswer, PlanStatus
from casslab.capacity.problem import PlanProblem

TOLERANCE = 1e-6  # relative, for sums and products of the file's decimals


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def _at_least(value: float, floor: float) -> bool:
    return value >= floor - TOLERANCE * max(1.0, abs(floor))


def interpolated_ops(points: Mapping[int, float], nodes: int) -> float:
    """t(nodes): straight lines between (0, 0) and the measured points, the last line
    continued past the last point, floored at 0."""
    xs = [0.0] + [float(n) for n in sorted(points)]
    ys = [0.0] + [float(points[n]) for n in sorted(points)]
    segment = len(xs) - 1  # past the last point: the last segment continued
    for position in range(1, len(xs)):
        if nodes <= xs[position]:
            segment = position
            break
    x0, x1, y0, y1 = xs[segment - 1], xs[segment], ys[segment - 1], ys[segment]
    value = y0 + (y1 - y0) * (nodes - x0) / (x1 - x0)
    return value if value > 0 else 0.0


def _tenant_violations(problem: PlanProblem, answer: PlanAnswer) -> list[str]:
    out = []
    names = {m.name for m in problem.machines}
    if set(answer.tenants) != set(problem.tenants):
        answered, asked = sorted(answer.tenants), sorted(problem.tenants)
        out.append(f"tenants answered {answered} != problem's {asked}")
    for name, got in answer.tenants.items():
        tenant = problem.tenants.get(name)
        vm = problem.vm_types.get(got.vm_type)
        if tenant is None or vm is None:
            out.append(f"{name}: unknown tenant or VM type {got.vm_type!r}")
            continue
        points = problem.throughput[tenant.workload].get(got.vm_type)
        if points is None:
            out.append(f"{name}: {got.vm_type} has no throughput for {tenant.workload}")
            continue
        counts = got.placement
        if any(machine not in names for machine in counts):
            out.append(f"{name}: placement names unknown machines {sorted(set(counts) - names)}")
        if any(not isinstance(n, int) or n <= 0 for n in counts.values()):
            out.append(f"{name}: placement counts must be positive integers: {counts}")
        total = sum(counts.values())
        if total != got.vnodes:
            out.append(f"{name}: vnodes {got.vnodes} != placed {total}")
        if len(counts) < tenant.rf:
            out.append(f"{name}: on {len(counts)} machines, fewer than rf {tenant.rf}")
        if not _at_least(total * vm.heap_gib, tenant.rf * tenant.data_gib):
            out.append(
                f"{name}: {total} x {vm.heap_gib} GiB heap < rf {tenant.rf} x {tenant.data_gib} GiB"
            )
        ops = interpolated_ops(points, total)
        if not _at_least(ops, tenant.min_ops):
            out.append(f"{name}: t({total}) = {ops:.3f} ops/s < min {tenant.min_ops}")
        if not _close(ops, got.throughput_ops):
            out.append(f"{name}: reported throughput {got.throughput_ops} != t({total}) = {ops}")
    return out


def _machine_violations(problem: PlanProblem, answer: PlanAnswer) -> list[str]:
    out = []
    cpus: dict[str, float] = {}
    memory: dict[str, float] = {}
    for got in answer.tenants.values():
        vm = problem.vm_types.get(got.vm_type)
        if vm is None:
            continue
        for host, n in got.placement.items():
            cpus[host] = cpus.get(host, 0.0) + n * vm.cpus
            memory[host] = memory.get(host, 0.0) + n * vm.memory_gib
    used = {m for m, c in cpus.items() if c > 0}
    if set(answer.machines) != used:
        out.append(f"machines listed {sorted(answer.machines)} != machines in use {sorted(used)}")
    total_power = 0.0
    for machine in problem.machines:
        if machine.name not in used:
            continue
        cpu, mem = cpus[machine.name], memory[machine.name]
        if not _at_least(machine.cpus, cpu):
            out.append(f"{machine.name}: {cpu} CPUs used > {machine.cpus}")
        if not _at_least(machine.memory_gib, mem):
            out.append(f"{machine.name}: {mem} GiB used > {machine.memory_gib}")
        power = machine.pmax_w * (machine.k + (1 - machine.k) * cpu / machine.cpus)
        total_power += power
        use = answer.machines.get(machine.name)
        if use is None:
            continue
        if not (_close(use.cpus_used, cpu) and _close(use.memory_gib_used, mem)):
            out.append(f"{machine.name}: reported use {use} != {cpu} CPUs, {mem} GiB")
        if not _close(use.power_w, power):
            out.append(f"{machine.name}: reported power {use.power_w} W != {power} W")
    if answer.power_w is None or not _close(answer.power_w, total_power):
        out.append(f"total power {answer.power_w} W != {total_power} W")
    return out


def plan_violations(problem: PlanProblem, answer: PlanAnswer) -> list[str]:
    """Every requirement ``answer`` breaks and every figure it misreports; [] if none.

    An infeasible answer must have no placement and at least one reason."""
    if answer.status is PlanStatus.INFEASIBLE:
        out = []
        if answer.tenants or answer.machines or answer.power_w is not None:
            out.append("an infeasible answer carries a placement")
        if not answer.reasons:
            out.append("an infeasible answer gives no reason")
        return out
    return _tenant_violations(problem, answer) + _machine_violations(problem, answer)
