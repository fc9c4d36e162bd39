"""VM-size profiles, the heap Cassandra would pick inside them, and whether the host can
honour a cluster's limits. Pure: numbers in, limits, heaps and problems out.

The profiles are the cloud instance types the studies ran on (seed 003: 1 vCPU/1 GiB,
1 vCPU/2 GiB, 2 vCPU/4 GiB) by the names users know. A vCPU becomes a CPU quota of one
core (``cpu.cfs_quota_us`` = ``cpu.cfs_period_us``): a share of the host's time, not a
pinned core, like a burstable instance that never runs out of credits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from casslab.errors import ConfigError
from casslab.host.cgroup_limits import NodeLimits
from casslab.host.cpus import cpu_ranges, parse_cpuset
from casslab.units import parse_bytes

MIB = 1024 * 1024

PROFILES: dict[str, tuple[float, int]] = {  # name: (vCPUs, memory MiB)
    "t2.nano": (1, 512),
    "t2.micro": (1, 1024),
    "t2.small": (1, 2048),
    "t2.medium": (2, 4096),
    "t2.large": (2, 8192),
    "m5.large": (2, 8192),
    "m5.xlarge": (4, 16384),
    "c5.large": (2, 4096),
    "r5.large": (2, 16384),
}


def profile_names() -> str:
    return ", ".join(
        f"{n} ({c:g} vCPU, {m // 1024 or m / 1024:g} GiB)" for n, (c, m) in PROFILES.items()
    )


def resolve_limits(
    node_size: str | None,
    cpus: float | None,
    memory: str | None,
    cpu_scale: float = 1.0,
    cpuset: str | None = None,
    io_read: str | None = None,
    io_write: str | None = None,
) -> NodeLimits:
    """The limits of one node: a profile's, overridden by explicit ``cpus``/``memory``;
    every CPU limit times ``cpu_scale`` (for a host too small for the profiles)."""
    size_cpus: float | None = None
    size_mib: int | None = None
    if node_size is not None:
        if node_size not in PROFILES:
            raise ConfigError(
                f"node size {node_size!r} is not known; the sizes are: {profile_names()}; "
                "or give --cpus and --memory"
            )
        size_cpus, size_mib = PROFILES[node_size]
    if cpus is not None and cpus <= 0:
        raise ConfigError(f"--cpus {cpus:g}: must be more than 0, e.g. --cpus 1 or --cpus 0.5")
    if not 0 < cpu_scale <= 64:
        raise ConfigError(f"--cpu-scale {cpu_scale:g}: must be in (0, 64], e.g. 0.5")
    chosen_cpus = cpus if cpus is not None else size_cpus
    memory_mib = (
        parse_bytes(memory, "--memory", "2GiB or 512MiB") // MIB if memory is not None else size_mib
    )
    if chosen_cpus is not None:
        chosen_cpus = round(chosen_cpus * cpu_scale, 3)
    return NodeLimits(
        size=node_size,
        cpus=chosen_cpus,
        memory_mib=memory_mib,
        cpuset=cpuset,
        io_read_bps=parse_bytes(io_read, "--io-read", "50MiB") if io_read else None,
        io_write_bps=parse_bytes(io_write, "--io-write", "20MiB") if io_write else None,
    )


def env_heap_mib(memory_mib: int) -> int:
    """The heap ``cassandra-env.sh`` gives a node that sees ``memory_mib`` of memory:
    max(min(1/2 of memory, 1024 MiB), min(1/4 of memory, 8192 MiB)), at least 256."""
    half = min(memory_mib // 2, 1024)
    quarter = min(memory_mib // 4, 8192)
    return max(half, quarter, 256)


def heap_problem(
    heap_mib: int, heap: str, memory_mib: int | None, size: str | None = None
) -> str | None:
    """Why a heap of ``heap_mib`` (given as ``heap``) cannot run under a memory limit of
    ``memory_mib`` (from VM size ``size``, when it comes from one), or None: the heap must
    leave room below the limit for Cassandra's off-heap memory."""
    if memory_mib is None or heap_mib < memory_mib:
        return None
    named = f" ({size})" if size else ""
    return (
        f"--heap {heap} does not fit in the memory limit of {memory_mib} MiB per "
        f"node{named}; choose a smaller --heap or more --memory"
    )


def processor_count(limits: NodeLimits, host_cpus: int) -> int:
    """What the JVM should see as its processor count (``-XX:ActiveProcessorCount``):
    the quota rounded up, or the cpuset's size, at least 1 and at most the host's."""
    counts = [host_cpus]
    if limits.cpus is not None:
        counts.append(math.ceil(limits.cpus))
    if limits.cpuset is not None:
        counts.append(len(parse_cpuset(limits.cpuset)))
    return max(1, min(counts))


def host_problems(limits: NodeLimits, host_cpus: Sequence[int], host_memory_mib: int) -> list[str]:
    """Limits this host cannot honour for even one node (errors)."""
    problems: list[str] = []
    if limits.cpus is not None and limits.cpus > len(host_cpus):
        problems.append(
            f"each node asks for {limits.cpus:g} CPUs but this host has {len(host_cpus)}; "
            f"use a smaller --node-size, --cpus {len(host_cpus)} or less, or --cpu-scale "
            f"{len(host_cpus) / limits.cpus:.2g}"
        )
    if limits.memory_mib is not None and limits.memory_mib > host_memory_mib:
        problems.append(
            f"each node asks for {limits.memory_mib} MiB of memory but this host has "
            f"{host_memory_mib} MiB; use a smaller --node-size or --memory"
        )
    if limits.cpuset is not None:
        missing = sorted(set(parse_cpuset(limits.cpuset)) - set(host_cpus))
        if missing:
            problems.append(
                f"--cpuset {limits.cpuset}: CPU(s) {', '.join(map(str, missing))} do not exist "
                f"here; this host has CPUs {cpu_ranges(host_cpus)}"
            )
    return problems


def oversubscription(
    limits: NodeLimits, nodes: int, host_cpus: int, host_memory_mib: int
) -> list[str]:
    """Warnings when ``nodes`` nodes of ``limits`` together ask for more CPU or memory than
    the host has: they will run, but compete, and no longer behave like that many VMs."""
    warnings: list[str] = []
    if limits.cpus is not None and limits.cpus * nodes > host_cpus:
        warnings.append(
            f"{nodes} node(s) x {limits.cpus:g} CPU = {limits.cpus * nodes:g} CPUs on a host "
            f"with {host_cpus}: the nodes compete for cores (add --cpu-scale "
            f"{host_cpus / (limits.cpus * nodes):.2g} to scale every CPU limit down)"
        )
    if limits.memory_mib is not None and limits.memory_mib * nodes > host_memory_mib:
        warnings.append(
            f"{nodes} node(s) x {limits.memory_mib} MiB = {limits.memory_mib * nodes} MiB of "
            f"memory on a host with {host_memory_mib} MiB available: the host may swap or "
            "kill nodes"
        )
    return warnings


def join_problem(limits: NodeLimits, heap_mib: int, available_mib: int) -> str | None:
    """Why one more node of ``limits`` (and a heap of ``heap_mib``) does not fit the
    ``available_mib`` this host has free now; None when it does (pure)."""
    needed_mib = max(limits.memory_mib or 0, heap_mib)
    if needed_mib > available_mib:
        what = "its cgroup's memory limit" if limits.memory_mib else "its heap"
        return (
            f"a new node needs {needed_mib} MiB ({what}) but this host has {available_mib} "
            "MiB available; stop something, or add to a cluster of smaller nodes (--memory)"
        )
    return None
