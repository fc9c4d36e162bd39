"""VM-size profiles, the heap cassandra-env.sh would give, and the host checks (pure)."""

from __future__ import annotations

import pytest

from casslab.cluster.isolated import sizes
from casslab.errors import ConfigError
from casslab.host.cgroup_limits import NodeLimits


@pytest.mark.parametrize(
    ("size", "cpus", "memory_mib"),
    [("t2.micro", 1, 1024), ("t2.small", 1, 2048), ("t2.medium", 2, 4096), ("m5.large", 2, 8192)],
)
def test_the_profiles_users_know(size: str, cpus: float, memory_mib: int) -> None:
    limits = sizes.resolve_limits(size, None, None)
    assert (limits.size, limits.cpus, limits.memory_mib) == (size, cpus, memory_mib)


def test_explicit_cpus_and_memory_override_the_profile_and_the_scale_applies() -> None:
    limits = sizes.resolve_limits("t2.medium", 1.5, "3GiB", cpu_scale=0.5)
    assert (limits.cpus, limits.memory_mib) == (0.75, 3072)
    assert sizes.resolve_limits(None, None, None, cpu_scale=0.5).cpus is None


def test_an_unknown_size_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"t2\.huge.*t2\.micro \(1 vCPU, 1 GiB\).*--cpus"):
        sizes.resolve_limits("t2.huge", None, None)


@pytest.mark.parametrize(
    ("memory_mib", "heap_mib"),
    [(1024, 512), (2048, 1024), (4096, 1024), (8192, 2048), (16384, 4096), (512, 256)],
)
def test_the_heap_follows_cassandra_env_sh(memory_mib: int, heap_mib: int) -> None:
    # max(min(1/2 ram, 1024MB), min(1/4 ram, 8192MB)), as calculate_heap_sizes does
    assert sizes.env_heap_mib(memory_mib) == heap_mib


def test_the_jvm_sees_the_quota_or_the_cpuset_as_its_processors() -> None:
    assert sizes.processor_count(NodeLimits(cpus=0.5), 2) == 1
    assert sizes.processor_count(NodeLimits(cpus=1.5), 4) == 2
    assert sizes.processor_count(NodeLimits(cpus=8), 2) == 2
    assert sizes.processor_count(NodeLimits(cpuset="0-2"), 4) == 3
    assert sizes.processor_count(NodeLimits(), 2) == 2


def test_limits_the_host_cannot_honour_are_errors_with_the_fix() -> None:
    problems = sizes.host_problems(
        NodeLimits(cpus=4, memory_mib=65536, cpuset="0,5"), [0, 1], 24576
    )
    assert len(problems) == 3
    assert "--cpu-scale 0.5" in problems[0]
    assert "65536 MiB" in problems[1]
    assert "CPU(s) 5 do not exist here; this host has CPUs 0-1" in problems[2]
    assert sizes.host_problems(NodeLimits(cpus=1, memory_mib=2048), [0, 1], 24576) == []


def test_oversubscription_is_a_warning_with_the_scale_that_fits() -> None:
    warnings = sizes.oversubscription(NodeLimits(cpus=1, memory_mib=8192), 3, 2, 20000)
    assert "3 node(s) x 1 CPU = 3 CPUs on a host with 2" in warnings[0]
    assert "--cpu-scale 0.67" in warnings[0]
    assert "24576 MiB" in warnings[1]
    assert sizes.oversubscription(NodeLimits(cpus=0.5, memory_mib=2048), 2, 2, 20000) == []


def test_status_describes_the_limits() -> None:
    limits = NodeLimits(size="t2.small", cpus=0.5, memory_mib=2048)
    assert limits.describe() == "t2.small: 0.5 CPU, 2048 MiB"
    assert limits.short() == "0.5cpu 2048M"
    assert NodeLimits().describe() == "no limits"
