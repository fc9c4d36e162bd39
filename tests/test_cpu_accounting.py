"""CPU-seconds per test module (tests/cpu_accounting.py): where the cpuacct hierarchy is
read from, and a real pytest run whose module's child process burns half a CPU-second,
counted for that module in a cgroup that is gone afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cpu_accounting import ENV, GROUP, cpuacct_mount, own_cpuacct

MOUNTS = """\
tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0
cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0
"""
COMOUNTED = "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0\n"


def test_the_cpuacct_hierarchy_and_this_process_s_place_in_it() -> None:
    assert cpuacct_mount(MOUNTS) == Path("/sys/fs/cgroup/cpuacct")
    assert cpuacct_mount(COMOUNTED) == Path("/sys/fs/cgroup/cpu,cpuacct")
    assert cpuacct_mount("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n") is None
    assert own_cpuacct("3:cpuset:/\n2:cpuacct:/ci/job\n1:cpu:/\n0::/\n") == "/ci/job"
    assert own_cpuacct("2:cpu,cpuacct:/a\n") == "/a"
    assert own_cpuacct("0::/user.slice\n") == "/"


BURNING = """\
import subprocess, sys

def test_burns_half_a_cpu_second_in_a_child():
    burn = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.5: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)
"""


def _mount() -> Path | None:
    return cpuacct_mount(Path("/proc/self/mounts").read_text())


@pytest.mark.skipif(
    os.geteuid() != 0 or _mount() is None, reason="needs root and a cgroup-v1 cpuacct hierarchy"
)
def test_a_module_s_children_are_counted_and_the_cgroup_goes(tmp_path: Path) -> None:
    (tmp_path / "test_burn.py").write_text(BURNING)
    worker = f"probe{os.getpid()}"
    env = {
        **os.environ,
        ENV: str(tmp_path / "cpu"),
        "PYTEST_XDIST_WORKER": worker,
        "PYTHONPATH": str(Path(__file__).parent),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "cpu_accounting", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [line] = (tmp_path / "cpu" / f"cpu-{worker}.tsv").read_text().splitlines()
    module, seconds = line.split("\t")
    assert module == "test_burn.py"
    assert 0.45 <= float(seconds) < 30, line
    mount = _mount()
    assert mount is not None
    assert not (mount / GROUP / worker).exists()
