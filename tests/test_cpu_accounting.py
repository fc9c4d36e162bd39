"""CPU-seconds per test module (tests/cpu_accounting.py): where the cpuacct hierarchy is
found, and a real pytest run whose module's child process burns half a CPU-second,
counted for that module in a cgroup that is gone afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from casslab.host.cgroups import MOUNTINFO
from cpu_accounting import ENV, GROUP, cpuacct_mount

MOUNTINFO_V1 = """\
30 25 0:26 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
31 30 0:27 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
32 30 0:28 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
"""
COMOUNTED = "31 30 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
V2 = "30 25 0:26 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n"


def test_the_cpuacct_hierarchy_is_read_with_casslab_s_own_parser() -> None:
    assert cpuacct_mount(MOUNTINFO_V1) == Path("/sys/fs/cgroup/cpuacct")
    assert cpuacct_mount(COMOUNTED) == Path("/sys/fs/cgroup/cpu,cpuacct")
    assert cpuacct_mount(V2) is None


BURNING = """\
import subprocess, sys

def test_burns_half_a_cpu_second_in_a_child():
    burn = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.5: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)
"""


def _mount() -> Path | None:
    return cpuacct_mount(MOUNTINFO.read_text())


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
        # the plugin beside this file, casslab as the suite finds it
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path]),
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
