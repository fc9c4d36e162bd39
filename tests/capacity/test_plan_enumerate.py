"""The planner agrees with exhaustive enumeration on small random problems (seeded), and
both answers pass the independent checker."""

from __future__ import annotations

import random

import pytest

from casslab.capacity.answer import PlanStatus
from casslab.capacity.enumerate import enumerate_optimum
from casslab.capacity.plan import plan
from casslab.capacity.plan_check import plan_violations
from casslab.capacity.problem import Machine, PlanProblem, Tenant, VmType

PROBLEMS = 100


def random_problem(rng: random.Random) -> PlanProblem:
    """2-4 machines (identical or not), 1-3 VM types, 1-3 tenants; throughput from 1-3
    random points, rising or not; requirements often feasible, sometimes not."""
    count = rng.randint(2, 4)
    identical = rng.random() < 0.4
    machines: list[Machine] = []
    for number in range(1, count + 1):
        if identical and machines:
            machines.append(machines[0].model_copy(update={"name": f"m{number}"}))
            continue
        machines.append(
            Machine(
                name=f"m{number}",
                cpus=rng.choice([2, 3, 4]),
                memory_gib=rng.choice([2, 4, 6]),
                pmax_w=rng.choice([100, 200, 350]),
                k=rng.choice([0, 0.3, 0.6, 1]),
            )
        )
    vm_types = {
        f"v{j}": VmType(
            cpus=rng.choice([1, 1, 2]),
            memory_gib=rng.choice([1, 2]),
            heap_gib=rng.choice([0.5, 1, 2]),
        )
        for j in range(rng.randint(1, 3))
    }
    tenants = {}
    throughput: dict[str, dict[str, dict[int, float]]] = {}
    for i in range(rng.randint(1, 3)):
        workload = f"w{i}"
        tenants[f"T{i}"] = Tenant(
            workload=workload,
            min_ops=rng.choice([0, 500, 1000, 2000]),
            rf=rng.randint(1, min(2, count)),
            data_gib=rng.choice([0, 0.5, 1]),
        )
        offered = [j for j in vm_types if rng.random() < 0.8] or ["v0"]
        throughput[workload] = {
            j: {n: rng.choice([300, 800, 1500, 2000]) for n in rng.sample([1, 2, 3, 4, 6], 2)}
            for j in offered
        }
    return PlanProblem(
        machines=tuple(machines), vm_types=vm_types, tenants=tenants, throughput=throughput
    )


def test_the_planner_reaches_the_enumerated_optimum() -> None:
    rng = random.Random(20170201)
    statuses = []
    for _ in range(PROBLEMS):
        problem = random_problem(rng)
        planned = plan(problem)
        enumerated = enumerate_optimum(problem)
        assert plan_violations(problem, planned) == [], problem
        assert plan_violations(problem, enumerated) == [], problem
        assert planned.status == enumerated.status, problem
        if planned.status is PlanStatus.OPTIMAL:
            assert planned.power_w == pytest.approx(enumerated.power_w, abs=1e-6), problem
        statuses.append(planned.status)
    optimal = statuses.count(PlanStatus.OPTIMAL)
    assert optimal >= PROBLEMS // 2  # the generator exercises placements, not only refusals
    assert statuses.count(PlanStatus.INFEASIBLE) >= 5  # and refusals


def test_the_enumerator_reaches_a_hand_worked_optimum() -> None:
    """One tenant, rf 2, 3 t2.micro nodes for its data: the 2-CPU machines (idle 50 W,
    25 W per CPU) beat the 8-CPU one (idle 150 W); 2 + 1 nodes on them."""
    problem = PlanProblem(
        machines=(
            Machine(name="m1", cpus=8, memory_gib=8, pmax_w=200, k=0.75),
            Machine(name="m2", cpus=2, memory_gib=2, pmax_w=100, k=0.5),
            Machine(name="m3", cpus=2, memory_gib=2, pmax_w=100, k=0.5),
        ),
        vm_types={"t2.micro": VmType(cpus=1, memory_gib=1, heap_gib=0.5)},
        tenants={"A": Tenant(workload="w", min_ops=0, rf=2, data_gib=0.75)},
        throughput={"w": {"t2.micro": {1: 100}}},
    )
    answer = enumerate_optimum(problem)
    assert answer.power_w == pytest.approx(2 * 50 + 3 * 25)
    assert sorted(answer.tenants["A"].placement.values()) == [1, 2]
    assert set(answer.tenants["A"].placement) == {"m2", "m3"}
