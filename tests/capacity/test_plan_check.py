"""The independent checker finds each broken requirement and each misreported figure."""

from __future__ import annotations

import pytest

from casslab.capacity.answer import (
    MachineUse,
    PlanAnswer,
    PlanStatus,
    answer_from_placement,
    no_placement,
)
from casslab.capacity.plan_check import plan_violations
from casslab.capacity.problem import Machine, PlanProblem, Tenant, VmType

PROBLEM = PlanProblem(
    machines=tuple(
        Machine(name=f"m{n}", cpus=4, memory_gib=4, pmax_w=100, k=0.5) for n in (1, 2, 3)
    ),
    vm_types={
        "t2.micro": VmType(cpus=1, memory_gib=1, heap_gib=0.5),
        "t2.medium": VmType(cpus=2, memory_gib=2, heap_gib=2),
    },
    tenants={"A": Tenant(workload="w", min_ops=2000, rf=2, data_gib=1)},  # 4 micro for data
    throughput={"w": {"t2.micro": {2: 1000, 4: 2000}, "t2.medium": {2: 3000}}},
)


def _answer(vm_type: str, counts: dict[str, int]) -> PlanAnswer:
    return answer_from_placement(PROBLEM, {"A": (vm_type, counts)})


def test_a_good_placement_passes() -> None:
    answer = _answer("t2.micro", {"m1": 2, "m2": 2})
    assert plan_violations(PROBLEM, answer) == []
    assert answer.power_w == pytest.approx(2 * (50 + 50 * 2 / 4))


@pytest.mark.parametrize(
    ("vm_type", "counts", "expected"),
    [
        ("t2.micro", {"m1": 4}, "A: on 1 machines, fewer than rf 2"),
        ("t2.micro", {"m1": 2, "m2": 1}, "A: 3 x 0.5 GiB heap < rf 2 x 1.0 GiB"),
        ("t2.medium", {"m1": 1}, "A: t(1) = 1500.000 ops/s < min 2000.0"),
        ("t2.micro", {"m1": 5, "m2": 1}, "m1: 5.0 CPUs used > 4.0"),
        ("t2.medium", {"m1": 3, "m2": 1}, "m1: 6.0 GiB used > 4.0"),
    ],
)
def test_each_broken_requirement_is_named(
    vm_type: str, counts: dict[str, int], expected: str
) -> None:
    assert expected in plan_violations(PROBLEM, _answer(vm_type, counts))


def test_misreported_figures_are_named() -> None:
    good = _answer("t2.micro", {"m1": 2, "m2": 2})
    tenant = good.tenants["A"]
    wrong_count = good.model_copy(
        update={"tenants": {"A": tenant.model_copy(update={"vnodes": 5})}}
    )
    assert "A: vnodes 5 != placed 4" in plan_violations(PROBLEM, wrong_count)
    wrong_power = good.model_copy(update={"power_w": 149.0})
    assert "total power 149.0 W != 150.0 W" in plan_violations(PROBLEM, wrong_power)
    machines = dict(good.machines)
    machines["m1"] = MachineUse(cpus_used=2, memory_gib_used=2, power_w=80)
    assert "m1: reported power 80.0 W != 75.0 W" in plan_violations(
        PROBLEM, good.model_copy(update={"machines": machines})
    )
    machines["m3"] = MachineUse(cpus_used=0, memory_gib_used=0, power_w=0)
    listed = plan_violations(PROBLEM, good.model_copy(update={"machines": machines}))
    assert "machines listed ['m1', 'm2', 'm3'] != machines in use ['m1', 'm2']" in listed
    wrong_ops = good.model_copy(
        update={"tenants": {"A": tenant.model_copy(update={"throughput_ops": 2500.0})}}
    )
    assert "A: reported throughput 2500.0 != t(4) = 2000.0" in plan_violations(PROBLEM, wrong_ops)


def test_a_placement_on_an_unknown_machine_or_type_is_refused() -> None:
    good = _answer("t2.micro", {"m1": 2, "m2": 2})
    tenant = good.tenants["A"]
    moved = tenant.model_copy(update={"placement": {"m1": 2, "m9": 2}})
    found = plan_violations(PROBLEM, good.model_copy(update={"tenants": {"A": moved}}))
    assert "A: placement names unknown machines ['m9']" in found
    renamed = tenant.model_copy(update={"vm_type": "t2.large"})
    found = plan_violations(PROBLEM, good.model_copy(update={"tenants": {"A": renamed}}))
    assert "A: unknown tenant or VM type 't2.large'" in found


def test_an_infeasible_answer_needs_a_reason_and_no_placement() -> None:
    assert plan_violations(PROBLEM, no_placement(PlanStatus.INFEASIBLE, ("why",), 0)) == []
    assert plan_violations(PROBLEM, no_placement(PlanStatus.INFEASIBLE, (), 0)) == [
        "an infeasible answer gives no reason"
    ]
