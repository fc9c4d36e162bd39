"""The planner's optimum on small problems worked out by hand; every answer also passes
the independent checker."""

from __future__ import annotations

import re

import pytest

from casslab.capacity import plan as plan_module
from casslab.capacity.answer import PlanAnswer, PlanStatus
from casslab.capacity.plan import plan
from casslab.capacity.plan_check import plan_violations
from casslab.capacity.plan_model import Model
from casslab.capacity.plan_solve import Solution, SolveStatus, solve_model
from casslab.capacity.problem import Machine, PlanProblem, Tenant, VmType
from casslab.capacity.problem_load import parse_problem

MICRO = VmType(cpus=1, memory_gib=1, heap_gib=0.5)
SMALL = VmType(cpus=1, memory_gib=2, heap_gib=1)
MEDIUM = VmType(cpus=2, memory_gib=4, heap_gib=2)


def checked(problem: PlanProblem) -> PlanAnswer:
    answer = plan(problem)
    assert plan_violations(problem, answer) == []
    return answer


def test_the_issue_example() -> None:
    """t2.micro needs 18 nodes for 3 x 3 GiB in 0.5 GiB heaps, t2.small 9 (t(9) = 16114
    >= 8000): 9 one-CPU nodes on rf = 3 machines, 3 x 0.6 x 300 + 0.4 x 300 / 8 x 9 W."""
    problem = parse_problem(
        """
machines: {count: 8, cpus: 8, memory_gib: 16, pmax_w: 300, k: 0.6}
vm_types:
  t2.micro: {cpus: 1, memory_gib: 1, heap_gib: 0.5}
  t2.small: {cpus: 1, memory_gib: 2, heap_gib: 1}
  t2.medium: {cpus: 2, memory_gib: 4, heap_gib: 2}
tenants:
  A: {workload: ycsb-a, min_ops: 8000, rf: 3, data_gib: 3}
throughput:
  ycsb-a: {t2.micro: {3: 2795, 6: 7899}, t2.small: {3: 6364, 6: 11239}}
"""
    )
    answer = checked(problem)
    assert answer.status is PlanStatus.OPTIMAL
    assert answer.power_w == pytest.approx(3 * 0.6 * 300 + 0.4 * 300 / 8 * 9)  # 675
    got = answer.tenants["A"]
    assert (got.vm_type, got.vnodes, len(got.placement)) == ("t2.small", 9, 3)
    assert got.throughput_ops == 16114
    assert list(answer.machines) == ["m1", "m2", "m3"]  # identical machines fill in order


def _two_machines(nodes_needed: int) -> PlanProblem:
    """A big machine (idle 250 W, 15.625 W per CPU) and a small one (idle 84 W, 9 W per
    CPU, 4 CPUs); one tenant, rf 1, needing ``nodes_needed`` t2.micro nodes (500 ops/s each)."""
    return PlanProblem(
        machines=(
            Machine(name="big", cpus=16, memory_gib=64, pmax_w=500, k=0.5),
            Machine(name="small", cpus=4, memory_gib=8, pmax_w=120, k=0.7),
        ),
        vm_types={"t2.micro": MICRO},
        tenants={"A": Tenant(workload="w", min_ops=500 * nodes_needed, rf=1, data_gib=0)},
        throughput={"w": {"t2.micro": {1: 500}}},
    )


@pytest.mark.parametrize(
    ("nodes", "placement", "power_w"),
    [
        (3, {"small": 3}, 84 + 3 * 9),  # 111 W, not 250 + 3 x 15.625 on the big one
        (4, {"small": 4}, 84 + 4 * 9),
        (5, {"big": 5}, 250 + 5 * 15.625),  # 328.125 W; 4 small + 1 big would be 385.6
    ],
)
def test_the_cheaper_machine_wins_while_the_tenant_fits_it(
    nodes: int, placement: dict[str, int], power_w: float
) -> None:
    answer = checked(_two_machines(nodes))
    assert answer.tenants["A"].placement == placement
    assert answer.power_w == pytest.approx(power_w)


def test_a_throughput_that_falls_allows_only_some_counts() -> None:
    """t2.small's ops/s peak at 2 nodes (t(2) = 1000, t(3) = 800): with data needing 3
    nodes it cannot meet 900 ops/s; t2.medium (t(3) = 900) takes the tenant."""
    problem = PlanProblem(
        machines=(Machine(name="m1", cpus=8, memory_gib=16, pmax_w=100, k=0.5),),
        vm_types={"t2.small": SMALL, "t2.medium": MEDIUM},
        tenants={"A": Tenant(workload="w", min_ops=900, rf=1, data_gib=3)},
        throughput={"w": {"t2.small": {2: 1000, 4: 600}, "t2.medium": {3: 900}}},
    )
    answer = checked(problem)
    assert (answer.tenants["A"].vm_type, answer.tenants["A"].vnodes) == ("t2.medium", 3)
    assert answer.power_w == pytest.approx(50 + 50 * 6 / 8)


def test_with_no_idle_power_the_cheapest_cpu_is_used() -> None:
    """k = 0: a machine draws only for its CPUs, so the lower Pmax / C wins even spread."""
    problem = PlanProblem(
        machines=(
            Machine(name="hot", cpus=4, memory_gib=8, pmax_w=400, k=0),  # 100 W per CPU
            Machine(name="cool1", cpus=2, memory_gib=8, pmax_w=100, k=0),  # 50 W per CPU
            Machine(name="cool2", cpus=2, memory_gib=8, pmax_w=100, k=0),
        ),
        vm_types={"t2.micro": MICRO},
        tenants={"A": Tenant(workload="w", min_ops=0, rf=2, data_gib=2)},
        throughput={"w": {"t2.micro": {1: 1}}},
    )
    answer = checked(problem)
    # data: 2 x 2 GiB / 0.5 GiB = 8 nodes; cool machines hold 4; 4 more on hot
    assert answer.tenants["A"].placement == {"hot": 4, "cool1": 2, "cool2": 2}
    assert answer.power_w == pytest.approx(4 * 100 + 4 * 50)


def test_tenants_share_machines_within_cpu_and_memory() -> None:
    """Two tenants, rf 2, 4 t2.medium nodes each (8 CPUs, 16 GiB per tenant) on 8-CPU,
    12 GiB machines: memory allows 3 mediums a machine, so 8 nodes need 3 machines."""
    problem = PlanProblem(
        machines=tuple(
            Machine(name=f"m{n}", cpus=8, memory_gib=12, pmax_w=200, k=0.5) for n in (1, 2, 3, 4)
        ),
        vm_types={"t2.medium": MEDIUM},
        tenants={
            "A": Tenant(workload="w", min_ops=4000, rf=2, data_gib=0),
            "B": Tenant(workload="w", min_ops=4000, rf=2, data_gib=0),
        },
        throughput={"w": {"t2.medium": {1: 1000}}},
    )
    answer = checked(problem)
    assert [t.vnodes for t in answer.tenants.values()] == [4, 4]
    assert len(answer.machines) == 3
    assert answer.power_w == pytest.approx(3 * 100 + 100 / 8 * 16)
    assert all(use.memory_gib_used <= 12 for use in answer.machines.values())


def test_a_time_limit_gives_the_best_placement_found_or_says_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def cut_short(model: Model, time_limit_s: float) -> Solution:
        found = solve_model(model, time_limit_s)
        return Solution(SolveStatus.TIME_LIMIT, found.values, found.objective, time_limit_s)

    monkeypatch.setattr(plan_module, "solve_model", cut_short)
    problem = _two_machines(3)
    answer = plan(problem, 2)
    assert answer.status is PlanStatus.TIME_LIMIT
    assert plan_violations(problem, answer) == []
    assert answer.reasons == (
        "the time limit of 2 s ran out before this placement was proven optimal; raise "
        "--time-limit for a proof",
    )

    def nothing(model: Model, time_limit_s: float) -> Solution:
        return Solution(SolveStatus.TIME_LIMIT, None, None, time_limit_s)

    monkeypatch.setattr(plan_module, "solve_model", nothing)
    answer = plan(problem, 2)
    assert (answer.status, answer.power_w, answer.tenants) == (PlanStatus.TIME_LIMIT, None, {})
    assert len(answer.reasons) == 1
    assert re.fullmatch(
        r"no feasible placement found within the time limit of 2 s \(\d+ variables; the "
        r"solve took 2\.0 s\); raise --time-limit",
        answer.reasons[0],
    )
