"""Checks across an experiment file's fields and against the parts that own the rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from casslab.experiment.file.experiment_model import Factor, FactorKind
from casslab.experiment.file.file_checks import (
    cell_problems,
    cluster_problems,
    command_problem,
    factor_problems,
    kpi_problem,
    kpis_problems,
    workload_problems,
)

THREADS = Factor(name="threads", kind=FactorKind.THREADS, levels=(8, 16))


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("op_rate", None),
        ("latency_p99_ms", None),
        ("read.latency_p99_ms", None),
        ("op_rat", "unknown KPI 'op_rat' (did you mean 'op_rate'?)"),
        ("read.cpu_busy_pct", "KPI 'cpu_busy_pct' is not reported per operation; use "),
        ("read.latency_p99", "unknown KPI 'read.latency_p99' (did you mean 'latency_p99_ms'?)"),
        ("cassandra_cpu_pct", None),
        ("node2.cassandra_cpu_pct", None),
        ("node2.cpu_busy_pct", "KPI 'cpu_busy_pct' is not reported per node; use "),
    ],
)
def test_kpi_problem(name: str, problem: str | None) -> None:
    found = kpi_problem(name)
    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert found.startswith(problem)


@pytest.mark.parametrize(
    ("kpis", "problems"),
    [
        (["op_rate", "latency_p99_ms"], []),
        (["op_rate", "op_rate"], ["kpis[1]: 'op_rate' is listed twice"]),
        (["op_rate", 5, "op_rat"], ["kpis[2]: unknown KPI 'op_rat' (did you mean 'op_rate'?)"]),
        ("op_rate", []),  # not a list: the model reports it
        (None, []),
    ],
)
def test_kpis_problems(kpis: Any, problems: list[str]) -> None:
    assert kpis_problems(kpis) == problems


@pytest.mark.parametrize(
    ("fields", "problems"),
    [
        ({"nodes": 3}, []),
        ({"nodes": 10}, ["nodes: must be <= 9, got 10"]),
        ({"heap": "64M"}, ["heap: heap '64M': Cassandra needs at least 256M"]),
        ({"isolation": "netns", "node_size": "t2.small", "heap": "1G"}, []),
        ({"node_size": "m6.large"}, ["node_size: node size 'm6.large' is not known; the sizes"]),
        (
            {"isolation": "netns", "memory": "1GiB", "heap": "1G"},
            ["heap: heap 1G does not fit in the memory limit of 1024 MiB per node; choose"],
        ),
        (  # every field's problem at once: a field the model refuses hides no other
            {"cpus": -1, "memory": "lots", "io_read": "1XB"},
            ["cpus: must be > 0", "memory: memory 'lots'", "io_read: io_read '1XB'"],
        ),
    ],
)
def test_cluster_problems(fields: dict[str, Any], problems: list[str]) -> None:
    found = cluster_problems(fields)
    assert len(found) == len(problems)
    assert all(f.startswith(p) for f, p in zip(found, problems, strict=True)), found


@pytest.mark.parametrize(
    ("cell", "problems"),
    [
        ({"threads": 16}, []),
        ({"threads": 16.0}, []),
        ({"threads": 32}, ["baseline.threads: 32 is not one of the levels (8, 16)"]),
        (
            {"thread": 8},
            ["baseline.thread: not a factor of this experiment (did you mean 'threads'?)"],
        ),
        ([1], []),  # not a mapping: the model reports it
    ],
)
def test_cell_problems(cell: Any, problems: list[str]) -> None:
    assert cell_problems("baseline", cell, {"threads": [8, 16]}, [THREADS]) == problems


@pytest.mark.parametrize(
    ("factors", "problems", "good"),
    [
        ({"threads": [8, 16]}, [], ["threads"]),
        ({"threads": []}, ["factors.threads: expected at least one level"], []),
        (
            {"threads": [8, 0]},
            ["factors.threads[1]: expected an integer >= 1 or best (the thread ramp's), got 0"],
            [],
        ),
        # each level is valid, so the factor is good: the repeat alone is reported
        (
            {"rate": [8, 8.0]},
            ["factors.rate[1]: 8.0 repeats level [0]; list each level once"],
            ["rate"],
        ),
        ({"colour": ["red"]}, ["factors.colour: unknown factor kind 'colour'"], []),
        ({"workload": ["write", " "]}, ["factors.workload[1]: expected a stress or YCSB"], []),
    ],
)
def test_factor_problems(factors: dict[str, Any], problems: list[str], good: list[str]) -> None:
    found, _parsed, passed = factor_problems(factors, None)
    assert len(found) == len(problems), found
    assert all(f.startswith(p) for f, p in zip(found, problems, strict=True)), found
    assert [f.name for f in passed] == good


@pytest.mark.parametrize(
    ("data", "problems"),
    [
        ({"workload": "write", "measure": "duration=1m"}, []),
        ({}, ["workload: required when the workload is not a factor"]),
        (
            {"workload": "write", "factors": {"workload": ["read"]}},
            ["workload: also given as a factor (factors.workload); keep one"],
        ),
        (
            {"workload": "write", "measure": "mixed duration=1m"},
            ["workload: measure 'mixed duration=1m': holds options only"],
        ),
        ({"workload": "write", "preload": "write n=lots"}, ["preload: "]),
    ],
)
def test_workload_problems(data: dict[str, Any], problems: list[str]) -> None:
    found = workload_problems(data, [], None)
    assert len(found) == len(problems), found
    assert all(f.startswith(p) for f, p in zip(found, problems, strict=True)), found


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("write n=1000 -rate threads=4", None),
        ("ycsb run -P workloada -threads 4", None),
        ("mixd", "mixd"),
        ("user profile=nope.yaml ops(insert=1)", "profile 'nope.yaml': no such file"),
    ],
)
def test_command_problem(command: str, problem: str | None, tmp_path: Path) -> None:
    found = command_problem(command, tmp_path)
    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert problem in found
