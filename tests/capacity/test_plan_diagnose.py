"""An infeasible problem says which requirement cannot be met."""

from __future__ import annotations

from casslab.capacity.answer import PlanAnswer, PlanStatus
from casslab.capacity.plan import plan
from casslab.capacity.plan_check import plan_violations
from casslab.capacity.problem import Machine, PlanProblem, Tenant, VmType

MICRO = VmType(cpus=1, memory_gib=1, heap_gib=0.5)
SMALL = VmType(cpus=1, memory_gib=2, heap_gib=1)
MEDIUM = VmType(cpus=2, memory_gib=4, heap_gib=2)


def _machines(count: int = 3, cpus: float = 8, memory_gib: float = 16) -> tuple[Machine, ...]:
    return tuple(
        Machine(name=f"m{n}", cpus=cpus, memory_gib=memory_gib, pmax_w=300, k=0.6)
        for n in range(1, count + 1)
    )


def infeasible(problem: PlanProblem) -> tuple[str, ...]:
    answer: PlanAnswer = plan(problem)
    assert answer.status is PlanStatus.INFEASIBLE
    assert plan_violations(problem, answer) == []
    return answer.reasons


def test_data_that_no_type_can_hold() -> None:
    problem = PlanProblem(
        machines=_machines(),
        vm_types={"t2.micro": MICRO, "t2.small": SMALL},
        tenants={"A": Tenant(workload="a", min_ops=0, rf=3, data_gib=10)},
        throughput={"a": {"t2.micro": {3: 2795}, "t2.small": {3: 6364}}},
    )
    assert infeasible(problem) == (
        "tenant A (a, 0 ops/s, rf 3, 10 GiB) fits no VM type even alone on the 3 machines: "
        "t2.micro: its data needs 60 nodes (rf 3 x 10 GiB / 0.5 GiB heap) but the machines "
        "hold at most 24; "
        "t2.small: its data needs 30 nodes (rf 3 x 10 GiB / 1 GiB heap) but the machines "
        "hold at most 24",
    )


def test_a_throughput_no_type_reaches() -> None:
    problem = PlanProblem(
        machines=_machines(),
        vm_types={"t2.micro": MICRO, "t2.medium": MEDIUM},
        tenants={"A": Tenant(workload="a", min_ops=100000, rf=3, data_gib=0.1)},
        throughput={"a": {"t2.micro": {3: 2795, 6: 7899}, "t2.medium": {3: 10336, 6: 19186}}},
    )
    (reason,) = infeasible(problem)
    assert reason == (
        "tenant A (a, 100000 ops/s, rf 3, 0.1 GiB) fits no VM type even alone on the 3 "
        "machines: t2.micro: reaches at most 38523 ops/s (on all 24 nodes), below the minimum "
        "100000; t2.medium: reaches at most 36886 ops/s (on all 12 nodes), below the minimum "
        "100000"
    )


def test_a_throughput_that_peaks_below_what_the_data_needs() -> None:
    problem = PlanProblem(
        machines=_machines(),
        vm_types={"t2.micro": MICRO},
        tenants={"A": Tenant(workload="a", min_ops=900, rf=3, data_gib=1)},  # 6 nodes
        throughput={"a": {"t2.micro": {3: 1000, 5: 600}}},
    )
    (reason,) = infeasible(problem)
    assert reason.endswith(
        "t2.micro: meets 900 ops/s only with 3 nodes, fewer than the 6 its data and replicas need"
    )


def test_too_few_machines_can_hold_the_type() -> None:
    machines = (*_machines(2), Machine(name="tiny", cpus=1, memory_gib=2, pmax_w=50, k=0.5))
    problem = PlanProblem(
        machines=machines,
        vm_types={"t2.medium": MEDIUM},
        tenants={"A": Tenant(workload="a", min_ops=0, rf=3, data_gib=0)},
        throughput={"a": {"t2.medium": {3: 1000}}},
    )
    (reason,) = infeasible(problem)
    assert reason.endswith(
        "t2.medium: only 2 machine(s) can hold a t2.medium (2 CPU, 4 GiB) node, rf 3 needs 3"
    )


def test_tenants_that_fit_alone_but_not_together() -> None:
    """A needs 20 t2.micro CPUs (10000 ops/s at 500 a node), B and C 3 each; 24 CPUs."""
    tenants = {
        "A": Tenant(workload="a", min_ops=10000, rf=3, data_gib=0),
        "B": Tenant(workload="b", min_ops=0, rf=3, data_gib=0.5),
        "C": Tenant(workload="b", min_ops=0, rf=3, data_gib=0.5),
    }
    problem = PlanProblem(
        machines=_machines(),
        vm_types={"t2.micro": MICRO},
        tenants=tenants,
        throughput={"a": {"t2.micro": {1: 500}}, "b": {"t2.micro": {3: 1000}}},
    )
    assert infeasible(problem) == (
        "every tenant fits alone on the machines, but not all together",
        "  CPU (eq. 15): the tenants need at least 26 CPUs together (A 20 x t2.micro, "
        "B 3 x t2.micro, C 3 x t2.micro), the machines have 24",
        "a placement exists without any one of: the minimum throughput (eq. 11); "
        "the machines' CPUs (eq. 15)",
        "the others fit without tenant A, or without tenant B, or without tenant C",
    )


def test_replicas_that_cannot_spread() -> None:
    """Two rf-2 tenants needing 3 t2.micro nodes each, on a 5-CPU and a 1-CPU machine: the
    6 nodes fit the 6 CPUs, but both tenants need a node on the machine that holds one."""
    problem = PlanProblem(
        machines=(
            Machine(name="m1", cpus=5, memory_gib=16, pmax_w=300, k=0.6),
            Machine(name="m2", cpus=1, memory_gib=16, pmax_w=300, k=0.6),
        ),
        vm_types={"t2.micro": MICRO},
        tenants={
            "A": Tenant(workload="a", min_ops=0, rf=2, data_gib=0.75),
            "B": Tenant(workload="a", min_ops=0, rf=2, data_gib=0.75),
        },
        throughput={"a": {"t2.micro": {1: 100}}},
    )
    reasons = infeasible(problem)
    assert reasons[0] == "every tenant fits alone on the machines, but not all together"
    assert reasons[1] == (
        "a placement exists without any one of: the machines' CPUs (eq. 15); "
        "the replicas on rf distinct machines (eq. 17)"
    )
    assert reasons[2] == "the others fit without tenant A, or without tenant B"
