"""The CPU a process may use: its cgroup from /proc/PID/cgroup texts, quotas in cores."""

from __future__ import annotations

import os

import pytest

from casslab.host.cpu_allowance import (
    cgroup_of,
    cpu_max_cores,
    cpus_allowed,
    process_cpu_s,
    quota_cores,
    stat_cpu_ticks,
)

V1 = "4:memory:/lab\n2:cpu,cpuacct:/casslab/engine-7\n1:cpuset:/\n0::/"
V2 = "0::/user.slice/lab"


def test_the_cpu_cgroup_of_v1_and_v2() -> None:
    assert cgroup_of(V1, "cpu") == (1, "/casslab/engine-7")
    assert cgroup_of(V2, "cpu") == (2, "/user.slice/lab")
    assert cgroup_of("", "cpu") is None


def test_quota_in_cores() -> None:
    assert quota_cores("10000\n", "100000\n") == 0.1
    assert quota_cores("250000", "100000") == 2.5
    assert quota_cores("-1", "100000") is None
    assert quota_cores("max", "100000") is None


def test_this_process_may_use_at_most_its_affinity() -> None:
    assert 0 < cpus_allowed() <= len(os.sched_getaffinity(0))
    assert cpus_allowed(os.getpid()) == cpus_allowed()


def test_cpu_ticks_of_a_stat_line_whose_name_has_spaces() -> None:
    stat = "42 (casslab (engine) x) S 1 42 42 0 -1 4194560 100 0 0 0 150 25 0 0 20 0 9 0 77 0 0"
    assert stat_cpu_ticks(stat) == 175


def test_this_process_has_used_some_cpu() -> None:
    before = process_cpu_s(os.getpid())
    sum(i * i for i in range(300_000))
    assert process_cpu_s(os.getpid()) >= before > 0


@pytest.mark.parametrize(
    ("text", "cpus"),
    [
        ("50000 100000\n", 0.5),  # half a CPU
        ("150000 100000\n", 1.5),
        ("25000 50000\n", 0.5),  # another period, the same share
        ("max 100000\n", None),  # no quota
        ("200000\n", 2.0),  # the period left out: the kernel's default 100 ms
    ],
)
def test_cpu_max_cores(text: str, cpus: float | None) -> None:
    assert cpu_max_cores(text) == cpus
