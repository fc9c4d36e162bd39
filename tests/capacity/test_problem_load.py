"""Reading a capacity problem file: both forms of ``machines``, and every kind of bad
input refused before anything is solved, with the value and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.capacity.problem import PlanProblemError
from casslab.capacity.problem_load import load_problem, parse_problem
from casslab.errors import ConfigError

GOOD = """
machines: {count: 3, cpus: 8, memory_gib: 16, pmax_w: 300, k: 0.6}
vm_types:
  t2.micro: {cpus: 1, memory_gib: 1, heap_gib: 0.5}
  t2.small: {cpus: 1, memory_gib: 2, heap_gib: 1}
tenants:
  A: {workload: ycsb-a, min_ops: 8000, rf: 3, data_gib: 3}
throughput:
  ycsb-a: {t2.micro: {3: 2795, 6: 7899}, t2.small: {3: 6364, 6: 11239}}
"""

LISTED = """
machines:
  - {name: big, cpus: 16, memory_gib: 64, pmax_w: 500, k: 0.5}
  - {name: small, cpus: 4, memory_gib: 8, pmax_w: 120, k: 0.7}
vm_types:
  t2.micro: {cpus: 1, memory_gib: 1, heap_gib: 0.5}
tenants:
  A: {workload: ycsb-a, min_ops: 100, rf: 2, data_gib: 0}
throughput:
  ycsb-a: {t2.micro: {1: 500}}
"""


def test_a_machine_pool_is_named_m1_to_mn() -> None:
    problem = parse_problem(GOOD)
    assert [m.name for m in problem.machines] == ["m1", "m2", "m3"]
    assert problem.machines[2].cpus == 8
    assert problem.types_of("A") == ["t2.micro", "t2.small"]
    assert problem.points("A", "t2.small") == {3: 6364, 6: 11239}


def test_listed_machines_keep_their_names_and_sizes() -> None:
    problem = parse_problem(LISTED)
    assert [(m.name, m.cpus, m.k) for m in problem.machines] == [
        ("big", 16, 0.5),
        ("small", 4, 0.7),
    ]


def test_a_type_without_throughput_is_not_offered() -> None:
    text = GOOD.replace(", t2.small: {3: 6364, 6: 11239}", "")
    assert parse_problem(text).types_of("A") == ["t2.micro"]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "t2.small: {3: 6364",
            "t2.large: {3: 6364",
            "throughput.ycsb-a.t2.large: unknown VM type 't2.large'; add it to vm_types or "
            "use one of t2.micro, t2.small",
        ),
        (
            "workload: ycsb-a",
            "workload: ycsb-d",
            "tenants.A.workload: no throughput for workload 'ycsb-d'; add throughput.ycsb-d "
            "(ops/s per VM type and node count) or use one of ycsb-a",
        ),
        ("min_ops: 8000", "min_ops: -8000", "tenants.A.min_ops: must be >= 0.0, got -8000"),
        ("data_gib: 3", "data_gib: -1", "tenants.A.data_gib: must be >= 0.0, got -1"),
        ("heap_gib: 0.5", "heap_gib: 0", "vm_types.t2.micro.heap_gib: must be > 0.0, got 0"),
        ("{3: 2795", "{3: -2795", "throughput.ycsb-a.t2.micro[3]: must be >= 0.0, got -2795"),
        ("{3: 2795", "{0: 2795", "throughput.ycsb-a.t2.micro[0]: must be >= 1, got 0"),
        ("cpus: 8", "cpus: -8", "machines.cpus: must be > 0.0, got -8"),
        ("count: 3", "count: 0", "machines.count: must be >= 1, got 0"),
        (
            "rf: 3",
            "rf: 4",
            "tenants.A.rf: 4 replicas need 4 distinct machines, the problem has 3; lower rf "
            "or add machines",
        ),
        ("k: 0.6", "k: 1.5", "machines.k: must be <= 1.0, got 1.5"),
        ("k: 0.6", "k: -0.1", "machines.k: must be >= 0.0, got -0.1"),
        ("rf: 3", "rf: 3, zone: a", "tenants.A.zone: unknown field 'zone'"),
        (
            "{3: 2795, 6: 7899}",
            "{}",
            "throughput.ycsb-a.t2.micro: no measurement; give ops/s per node count, "
            "e.g. {3: 2795, 6: 7899}",
        ),
        (
            "  A: {workload",
            "  A: {workload: ycsb-a}\n  A: {workload",
            "line 8, column 3: duplicate key 'A' (first at line 7); keep one",
        ),
        (
            "cpus: 8,",
            "cpus: [8,",
            "line 2, column 67: YAML syntax: expected ',' or ']', but got '}'",
        ),
    ],
)
def test_bad_input_names_the_value_and_the_fix(old: str, new: str, expected: str) -> None:
    assert old in GOOD
    with pytest.raises(PlanProblemError) as caught:
        parse_problem(GOOD.replace(old, new, 1), "p.yaml")
    assert caught.value.problems == [expected]
    assert isinstance(caught.value, ConfigError)
    assert str(caught.value).startswith("capacity problem p.yaml: 1 problem; fix each")


def test_every_problem_is_listed_at_once() -> None:
    text = LISTED.replace("name: small", "name: big").replace("k: 0.7", "k: 0.5")
    text = text.replace("rf: 2", "rf: 3").replace("{t2.micro: {1: 500}}", "{t2.nano: {1: 5}}")
    with pytest.raises(PlanProblemError) as caught:
        parse_problem(text)
    assert caught.value.problems == [
        "machines[1].name: 'big' is also machines[0]; give each machine its own name",
        "throughput.ycsb-a.t2.nano: unknown VM type 't2.nano'; add it to vm_types or use one "
        "of t2.micro",
        "tenants.A.rf: 3 replicas need 3 distinct machines, the problem has 2; lower rf or "
        "add machines",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "expected a mapping with machines, vm_types, tenants, throughput; got empty"),
        ("- 1\n", "expected a mapping with machines, vm_types, tenants, throughput; got a list"),
    ],
)
def test_a_file_that_is_not_a_mapping_is_refused(text: str, expected: str) -> None:
    with pytest.raises(PlanProblemError) as caught:
        parse_problem(text)
    assert caught.value.problems == [expected]


def test_a_missing_file_says_where_the_examples_are(tmp_path: Path) -> None:
    with pytest.raises(PlanProblemError, match=r"check the path \(the seed-003 cases are in"):
        load_problem(tmp_path / "nope.yaml")


def test_the_shipped_seed_cases_load() -> None:
    folder = Path(__file__).resolve().parents[2] / "experiments" / "capacity"
    files = sorted(folder.glob("seed003-case*.yaml"))
    assert len(files) == 8
    for file in files:
        problem = load_problem(file)
        assert list(problem.tenants) == ["A", "B", "C"]
        assert len(problem.machines) == 8
