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

ENV = "CASSLAB_TEST_CPU_DIR"
GROUP = "casslab-tests"


def cpuacct_mount(mounts: str) -> Path | None:
    """The mount point of the cgroup-v1 hierarchy with ``cpuacct`` in ``/proc/self/mounts``."""
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == "cgroup" and "cpuacct" in fields[3].split(","):
            return Path(fields[1])
    return None


def own_cpuacct(cgroup: str) -> str:
    """This process's cpuacct cgroup (``/`` at the root) in ``/proc/self/cgroup``."""
    for line in cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(","):
            return path
    return "/"


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
    mount = cpuacct_mount(Path("/proc/self/mounts").read_text())
    if mount is None:
        return None
    back = mount / own_cpuacct(Path("/proc/self/cgroup").read_text()).lstrip("/")
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
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return  # the pytest-xdist controller runs no test: its workers count
    if folder:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        accounting = start(Path(folder), worker)
        if accounting is not None:
            _open.append(accounting)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> None:
    for accounting in _open:
        accounting.enter(item.nodeid.split("::", 1)[0])


def pytest_unconfigure(config: pytest.Config) -> None:
    while _open:
        stop(_open.pop())
