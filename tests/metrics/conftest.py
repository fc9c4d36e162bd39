"""Real cgroup v1 groups holding a process, for the cgroup sampler's tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("cpu", "cpuacct", "memory")
OPTIONAL_CONTROLLERS = ("pids", "blkio")  # joined where the machine has them

# Memory is charged to the cgroup where a page is first touched: allocate after moving in.
BURN = (
    "import sys, time\nsys.stdin.readline()\nb = bytearray(8 << 20)\n"
    "t = time.time()\nwhile time.time() - t < 30: pass"
)
SLEEP = "import sys, time\nsys.stdin.readline()\nb = bytearray(16 << 20)\ntime.sleep(600)"
SLEEPER_MEMORY_LIMIT_BYTES = 256 << 20
SLEEPER_CPUS = 2.0  # a quota it never reaches: cgroup.cpu_limit_cpus is then recorded
THROTTLED_MEMORY_LIMIT_BYTES = 64 << 20
THROTTLED_CPUS = 0.1  # the CFS quota of throttled_cgroup, a share of one CPU


def cgroup_v1_writable() -> bool:
    return all(os.access(CGROUP_ROOT / c, os.W_OK) for c in CONTROLLERS)


def _controller_dirs(name: str) -> list[Path]:
    """The group's directory under each controller mount, once per hierarchy (a co-mounted
    ``cpu,cpuacct`` is one hierarchy with two names)."""
    dirs: dict[Path, Path] = {}
    optional = [c for c in OPTIONAL_CONTROLLERS if os.access(CGROUP_ROOT / c, os.W_OK)]
    for controller in (*CONTROLLERS, *optional):
        dirs.setdefault((CGROUP_ROOT / controller).resolve(), CGROUP_ROOT / controller / name)
    return list(dirs.values())


def _remove(d: Path) -> None:
    for _ in range(50):  # the kernel empties the group shortly after the kill
        try:
            if d.exists():
                d.rmdir()
            return
        except OSError:
            time.sleep(0.1)


@contextmanager
def cgroup_holding(
    code: str, *, memory_limit_bytes: int | None = None, cpu_quota_share: float | None = None
) -> Iterator[str]:
    """A new cgroup v1 (cpu, cpuacct, memory, and pids and blkio where writable) holding a
    Python process running ``code`` (which waits for a line on stdin before it allocates),
    with a memory limit and a CFS quota (a share of one CPU) when given. The process is
    killed by its PID and the groups removed afterwards, also when the test fails."""
    name = f"casslab-test-{uuid.uuid4().hex[:8]}"
    dirs = _controller_dirs(name)
    created: list[Path] = []
    process: subprocess.Popen[bytes] | None = None
    try:
        for d in dirs:
            d.mkdir()
            created.append(d)
        if memory_limit_bytes is not None:
            limit = CGROUP_ROOT / "memory" / name / "memory.limit_in_bytes"
            limit.write_text(str(memory_limit_bytes))
        if cpu_quota_share is not None:
            cpu = CGROUP_ROOT / "cpu" / name
            period_us = int((cpu / "cpu.cfs_period_us").read_text())
            (cpu / "cpu.cfs_quota_us").write_text(str(int(period_us * cpu_quota_share)))
        process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE)
        for d in dirs:
            (d / "cgroup.procs").write_text(str(process.pid))
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        process.stdin.flush()
        yield name
    finally:
        if process is not None:
            process.kill()
            process.wait()
            if process.stdin is not None:
                process.stdin.close()
        for d in created:
            _remove(d)


@pytest.fixture
def throttled_cgroup() -> Iterator[str]:
    """A cgroup allowed a tenth of a CPU (CFS quota) and 64 MiB whose process burns CPU for
    30 s (skips where cgroups cannot be made). A tenth, not a half: on a busy machine (the
    no-node phase runs on both cores) the spinner still gets its 10 ms of each 100 ms
    period and is throttled; with half a CPU it sometimes got less and was never
    throttled."""
    if not cgroup_v1_writable():
        pytest.skip("cgroup v1 cpu/cpuacct/memory hierarchies are not writable here")
    with cgroup_holding(
        BURN, memory_limit_bytes=THROTTLED_MEMORY_LIMIT_BYTES, cpu_quota_share=THROTTLED_CPUS
    ) as name:
        yield name


@pytest.fixture
def sleeper_cgroup() -> Iterator[str | None]:
    """A cgroup (memory limit 256 MiB, CPU quota 2 CPUs) whose process sleeps on 16 MiB;
    None where cgroups cannot be made."""
    if not cgroup_v1_writable():
        yield None
        return
    with cgroup_holding(
        SLEEP, memory_limit_bytes=SLEEPER_MEMORY_LIMIT_BYTES, cpu_quota_share=SLEEPER_CPUS
    ) as name:
        yield name
