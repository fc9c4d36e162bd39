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

# Memory is charged to the cgroup where a page is first touched: allocate after moving in.
BURN = (
    "import sys, time\nsys.stdin.readline()\nb = bytearray(8 << 20)\n"
    "t = time.time()\nwhile time.time() - t < 30: pass"
)
SLEEP = "import sys, time\nsys.stdin.readline()\nb = bytearray(16 << 20)\ntime.sleep(600)"


def cgroup_v1_writable() -> bool:
    return all(os.access(CGROUP_ROOT / c, os.W_OK) for c in CONTROLLERS)


@contextmanager
def cgroup_holding(code: str) -> Iterator[str]:
    """A new cgroup v1 (cpu, cpuacct, memory) holding a Python process running ``code``
    (which waits for a line on stdin before it allocates); removed afterwards."""
    name = f"casslab-test-{uuid.uuid4().hex[:8]}"
    dirs = [CGROUP_ROOT / c / name for c in CONTROLLERS]
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE)
    try:
        for d in dirs:
            d.mkdir()
            (d / "cgroup.procs").write_text(str(process.pid))
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        process.stdin.flush()
        yield name
    finally:
        process.kill()
        process.wait()
        for d in dirs:
            for _ in range(50):  # the kernel empties the group shortly after the kill
                try:
                    if d.exists():
                        d.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


@pytest.fixture
def real_cgroup() -> Iterator[str]:
    """A cgroup whose process burns CPU for 30 s (skips where cgroups cannot be made)."""
    if not cgroup_v1_writable():
        pytest.skip("cgroup v1 cpu/cpuacct/memory hierarchies are not writable here")
    with cgroup_holding(BURN) as name:
        yield name


@pytest.fixture
def sleeper_cgroup() -> Iterator[str | None]:
    """A cgroup whose process sleeps on 16 MiB; None where cgroups cannot be made."""
    if not cgroup_v1_writable():
        yield None
        return
    with cgroup_holding(SLEEP) as name:
        yield name
