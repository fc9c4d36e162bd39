"""The load engine's own cgroup (``--engine-cpus``): the generator pinned to CPUs of its
own, so that it does not take CPU time from the nodes (seeds 000 and 002 ran their load on
a separate host).

:func:`engine_cgroup` makes ``casslab/engine-<casslab's PID>-<n>`` with the cpuset, and
the cpu and cpuacct controllers so that the engine's CPU time is accounted on its own;
it yields a ``preexec_fn`` that moves the engine into it before the engine runs anything,
and removes it at exit, also after an error or Ctrl-C. A process still inside then is one
of our engines: it is killed by PID. The memory controller is left alone: the engine's
memory stays accounted where casslab's is.

A SIGKILLed casslab runs no clean-up: every entry first sweeps the engine cgroups whose
casslab PID no longer runs (:func:`sweep`). A PID taken by another process since is seen
as running: its cgroup waits for a later sweep.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from casslab.errors import ConfigError
from casslab.host.cgroup_limits import NodeLimits
from casslab.host.cgroups import (
    MOUNTINFO,
    Cgroups,
    Hierarchy,
    available_controllers,
    join,
    mount_hint,
    read_hierarchy,
)
from casslab.host.cpus import cpu_ranges, parse_cpuset

OPTION = "--engine-cpus"
PARENT = "casslab"  # the engine cgroups sit next to the isolated clusters' ones
CONTROLLERS = {1: ("cpu", "cpuacct", "cpuset"), 2: ("cpu", "cpuset")}
_NAME = re.compile(r"engine-(\d+)-(\d+)")
_numbers = itertools.count(1)  # the <n> of this process's engine cgroups


def host_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity: the host's, unless casslab itself
    was pinned)."""
    return sorted(os.sched_getaffinity(0))


def parse_engine_cpus(text: str, cpus: Sequence[int]) -> list[int]:
    """The CPUs of ``--engine-cpus text`` (``1``, ``0-1``, ``1,3``) on a host with ``cpus``;
    :class:`ConfigError` naming the value, and the CPUs that exist when it names others."""
    wanted = parse_cpuset(text, OPTION)
    missing = sorted(set(wanted) - set(cpus))
    if missing:
        raise ConfigError(
            f"{OPTION} {text!r}: CPU(s) {', '.join(map(str, missing))} do not exist here; this "
            f"host has CPUs {cpu_ranges(cpus)}; choose among them, e.g. {OPTION} {max(cpus)}"
        )
    return wanted


def owner_pid(name: str) -> int | None:
    """The casslab PID in an engine cgroup's name (``engine-4242-1`` -> 4242), None for a
    cgroup that is not an engine's (an isolated cluster's, ``3fa9c1``)."""
    match = _NAME.fullmatch(name)
    return int(match.group(1)) if match else None


def check_engine_cpus(text: str, mountinfo: Path = MOUNTINFO) -> Hierarchy:
    """Everything ``--engine-cpus text`` needs, checked before anything starts: CPUs that
    exist, root, and the cgroup controllers; the cgroup hierarchy to use."""
    parse_engine_cpus(text, host_cpus())
    if os.geteuid() != 0:
        raise ConfigError(
            f"{OPTION} {text} needs root to create the load engine's cgroup; run casslab "
            f"as root (e.g. with sudo), or leave {OPTION} out"
        )
    hierarchy = read_hierarchy(mountinfo)
    missing = [
        c for c in CONTROLLERS[hierarchy.version] if c not in available_controllers(hierarchy)
    ]
    if missing:
        raise ConfigError(
            f"{OPTION} needs the cgroup controller(s) {', '.join(missing)} (cgroup "
            f"v{hierarchy.version}), which are not available here; "
            f"{mount_hint(hierarchy, missing)}; or leave {OPTION} out"
        )
    return hierarchy


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, as another user's
    return True


def sweep(hierarchy: Hierarchy) -> list[str]:
    """Remove the engine cgroups of casslab processes that no longer run (killing what is
    left inside: their engines); their names. Without root there is nothing to remove."""
    if os.geteuid() != 0:
        return []
    stale: set[str] = set()
    for parent in hierarchy.directories(PARENT):
        if not parent.is_dir():
            continue
        for child in parent.iterdir():
            pid = owner_pid(child.name)
            if pid is not None and child.is_dir() and not _running(pid):
                stale.add(child.name)
    for name in sorted(stale):
        Cgroups(hierarchy, f"{PARENT}/{name}", list(hierarchy.mounts)).remove()
    return sorted(stale)


@contextmanager
def engine_cgroup(text: str, mountinfo: Path = MOUNTINFO) -> Iterator[Callable[[], None]]:
    """A cgroup pinned to the CPUs of ``--engine-cpus text`` for the load engine, while
    the ``with`` block runs; yields the ``preexec_fn`` that puts a child in it (see the
    module docstring). :class:`ConfigError` before anything is made when the value, the
    user or the host cannot have it."""
    hierarchy = check_engine_cpus(text, mountinfo)
    cpus = parse_engine_cpus(text, host_cpus())
    sweep(hierarchy)
    relative = f"{PARENT}/engine-{os.getpid()}-{next(_numbers)}"
    cgroups = Cgroups(hierarchy, relative, CONTROLLERS[hierarchy.version])
    try:
        cgroups.create_group(relative, NodeLimits(cpuset=cpu_ranges(cpus)))
        yield join(cgroups.procs_files_of(relative))
    finally:
        cgroups.remove()
