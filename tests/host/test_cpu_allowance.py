"""The CPU a process may use: its cgroup from /proc/PID/cgroup texts, quotas in cores."""

from __future__ import annotations

import os

from casslab.host.cpu_allowance import cgroup_of, cpus_allowed, quota_cores

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
