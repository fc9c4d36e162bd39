"""CPU-seconds per test module, the module's nodes, engines and subprocesses included: a
pytest plugin (registered in conftest.py) that does nothing unless ``CASSLAB_TEST_CPU_DIR``
names a folder, as ``make test`` does for its real-node phase.

Why: that phase keeps both cores busy, so a module's wall time says little about what it
costs the others; the CPU it used does. How: each test process (each pytest-xdist worker)
moves itself into a cgroup of its own in the cgroup-v1 ``cpuacct`` hierarchy,
``casslab-tests/<worker>``, where every process it starts is counted with it (a node of
the isolated backend moves into its own cgroup and is not); when the module changes, the
cgroup's ``cpuacct.usage`` since the module began is appended to
``<folder>/cpu-<worker>.tsv`` as ``MODULE<TAB>CPU SECONDS``. At the end the process moves
back and removes its cgroup. Without a cpuacct hierarchy, or without the right to write
it, nothing is counted and the tests run as they would.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from casslab.host.cgroups import MOUNTINFO, parse_mountinfo
from casslab.host.cpu_allowance import cgroup_of

ENV = "CASSLAB_TEST_CPU_DIR"
GROUP = "casslab-tests"


def cpuacct_mount(mountinfo: str) -> Path | None:
    """The mount point of the cgroup-v1 ``cpuacct`` controller in a ``/proc/self/mountinfo``
    text (casslab's own reading of it), None on cgroup v2 or without one."""
    hierarchy = parse_mountinfo(mountinfo)
    if hierarchy is None or hierarchy.version != 1:
        return None
    return hierarchy.mounts.get("cpuacct")


@dataclass
class Accounting:
    """The open cgroup of this test process and the module being counted."""

    group: Path
    back: Path
    out: Path
    module: str | None = None
    started_ns: int = 0

    def usage_ns(self) -> int:
        return int((self.group / "cpuacct.usage").read_text())

    def enter(self, module: str) -> None:
        """``module``'s tests begin: the one before it is written."""
        if module == self.module:
            return
        self.close()
        self.module, self.started_ns = module, self.usage_ns()

    def close(self) -> None:
        if self.module is not None:
            seconds = (self.usage_ns() - self.started_ns) / 1e9
            with self.out.open("a") as out:
                out.write(f"{self.module}\t{seconds:.1f}\n")
        self.module = None


_open: list[Accounting] = []


def start(folder: Path, worker: str) -> Accounting | None:
    mount = cpuacct_mount(MOUNTINFO.read_text())
    own = cgroup_of(Path("/proc/self/cgroup").read_text(), "cpuacct")
    if mount is None or own is None:
        return None
    back = mount / own[1].lstrip("/")
    group = mount / GROUP / worker
    try:
        group.mkdir(parents=True, exist_ok=True)
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    return Accounting(group, back, folder / f"cpu-{worker}.tsv")


def stop(accounting: Accounting) -> None:
    """Write the last module, move back and remove the cgroup (and ``casslab-tests`` once
    no other worker's is left in it)."""
    accounting.close()
    try:
        (accounting.back / "cgroup.procs").write_text(str(os.getpid()))
        accounting.group.rmdir()
        accounting.group.parent.rmdir()
    except OSError:
        pass  # another worker's cgroup is still there; the last one removes the parent


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get(ENV)
    if not folder:
        return
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return  # the pytest-xdist controller runs no test: its workers count
    accounting = start(Path(folder), os.environ.get("PYTEST_XDIST_WORKER", "main"))
    if accounting is not None:
        _open.append(accounting)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> None:
    for accounting in _open:
        accounting.enter(item.nodeid.split("::", 1)[0])


def pytest_unconfigure(config: pytest.Config) -> None:
    while _open:
        stop(_open.pop())
