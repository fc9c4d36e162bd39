"""The nodes' cgroups: find the hierarchy, create a node's cgroup with its limits, put a
process in it, remove it. cgroup v1 (one mount per controller, as on this machine) and
v2 (one unified tree) alike.

What cgroup v1 cannot throttle: ``blkio.throttle.*`` applies to I/O the process submits
itself (direct I/O, reads that miss the page cache, fsync's writes); buffered writes are
written back later by kernel threads outside the cgroup and pass unthrottled, so a write
throttle mostly bites on Cassandra's commit-log syncs and compaction's fsyncs, not on its
buffered flushes. cgroup v2's ``io.max`` does throttle writeback.

The pure part (:func:`limit_writes`, :func:`parse_mountinfo`) says what to write where;
the rest does it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from casslab.errors import ConfigError
from casslab.host.cgroup_limits import NodeLimits

CPU_PERIOD_US = 100_000
MOUNTINFO = Path("/proc/self/mountinfo")
V1_CONTROLLERS = ("cpu", "cpuacct", "cpuset", "memory", "pids", "blkio")
V2_CONTROLLERS = ("cpu", "cpuset", "memory", "pids", "io")
_MAKE_ATTEMPTS = 5  # a shared level removed under a cgroup being made: made again


@dataclass(frozen=True)
class Hierarchy:
    """Where the cgroup controllers are mounted: v1, one directory per controller (two
    controllers may share one, e.g. ``cpu,cpuacct``); v2, one directory for all."""

    version: int
    mounts: dict[str, Path]  # controller -> mount directory (v2: every one the same)

    def directories(self, relative: str, controllers: Sequence[str] | None = None) -> list[Path]:
        """The directories of cgroup ``relative`` (in ``controllers``, default all), one
        per distinct mount."""
        seen: list[Path] = []
        for controller, mount in self.mounts.items():
            if controllers is not None and controller not in controllers:
                continue
            path = mount / relative
            if path not in seen:
                seen.append(path)
        return seen


def parse_mountinfo(text: str) -> Hierarchy | None:
    """The cgroup hierarchy of a ``/proc/self/mountinfo``: v1 when any v1 controller is
    mounted (a hybrid host's unified tree holds none), else v2; None without either."""
    v1: dict[str, Path] = {}
    v2: Path | None = None
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        mount_point, fstype, options = Path(fields[4]), tail[0], tail[2].split(",")
        if fstype == "cgroup":
            for option in options:
                if option in V1_CONTROLLERS:
                    v1[option] = mount_point
        elif fstype == "cgroup2":
            v2 = mount_point
    if v1:
        return Hierarchy(version=1, mounts=v1)
    if v2 is not None:
        return Hierarchy(version=2, mounts={c: v2 for c in V2_CONTROLLERS})
    return None


def read_hierarchy(mountinfo: Path = MOUNTINFO) -> Hierarchy:
    """This host's cgroup hierarchy; :class:`ConfigError` saying how to mount one when no
    cgroup file system is mounted."""
    hierarchy = parse_mountinfo(mountinfo.read_text())
    if hierarchy is None:
        raise ConfigError(
            "no cgroup file system is mounted (looked in /proc/self/mountinfo); mount "
            "one, e.g. `mount -t cgroup2 none /sys/fs/cgroup`, then try again"
        )
    return hierarchy


def available_controllers(hierarchy: Hierarchy) -> set[str]:
    """The controllers a cgroup can use here: v1, those mounted; v2, those the unified
    tree offers (its ``cgroup.controllers``)."""
    if hierarchy.version == 1:
        return set(hierarchy.mounts)
    mount = next(iter(hierarchy.mounts.values()))
    return set((mount / "cgroup.controllers").read_text().split())


def mount_hint(hierarchy: Hierarchy, missing: Sequence[str]) -> str:
    """How to get the ``missing`` controllers (the commands to run)."""
    if hierarchy.version == 1:
        return " ".join(
            f"`mkdir -p /sys/fs/cgroup/{c} && mount -t cgroup -o {c} cgroup /sys/fs/cgroup/{c}`"
            for c in missing
        )
    mount = next(iter(hierarchy.mounts.values()))
    return f"enable them in {mount}/cgroup.subtree_control"


OPTIONAL_CONTROLLERS = {1: ("pids", "blkio"), 2: ("pids", "io")}  # for the metrics


def needed_controllers(limits: NodeLimits, version: int) -> list[str]:
    """The controllers a node of ``limits`` needs (v1 names or v2 names): CPU accounting
    and memory always (the container metrics read them), the rest when a limit asks."""
    if version == 1:
        wanted = ["cpu", "cpuacct", "memory"]
        if limits.cpuset is not None:
            wanted.append("cpuset")
        if limits.io_read_bps is not None or limits.io_write_bps is not None:
            wanted.append("blkio")
        return wanted
    wanted = ["cpu", "memory"]
    if limits.cpuset is not None:
        wanted.append("cpuset")
    if limits.io_read_bps is not None or limits.io_write_bps is not None:
        wanted.append("io")
    return wanted


def limit_writes(
    limits: NodeLimits, version: int, device: str | None
) -> list[tuple[str, str, str]]:
    """(controller, file, value) to write into a node's cgroup for ``limits``; ``device``
    is the ``major:minor`` of the data directory's block device (for I/O throttles)."""
    writes: list[tuple[str, str, str]] = []
    quota = None if limits.cpus is None else max(1000, round(limits.cpus * CPU_PERIOD_US))
    io = limits.io_read_bps is not None or limits.io_write_bps is not None
    if io and device is None:
        raise ConfigError("an I/O throttle needs the block device of the data directory")
    if version == 1:
        if quota is not None:
            writes += [("cpu", "cpu.cfs_period_us", str(CPU_PERIOD_US))]
            writes += [("cpu", "cpu.cfs_quota_us", str(quota))]
        if limits.memory_mib is not None:
            writes.append(("memory", "memory.limit_in_bytes", str(limits.memory_mib * 2**20)))
        if limits.cpuset is not None:
            writes.append(("cpuset", "cpuset.cpus", limits.cpuset))
        if limits.io_read_bps is not None:
            writes.append(
                ("blkio", "blkio.throttle.read_bps_device", f"{device} {limits.io_read_bps}")
            )
        if limits.io_write_bps is not None:
            writes.append(
                ("blkio", "blkio.throttle.write_bps_device", f"{device} {limits.io_write_bps}")
            )
        return writes
    if quota is not None:
        writes.append(("cpu", "cpu.max", f"{quota} {CPU_PERIOD_US}"))
    if limits.memory_mib is not None:
        writes.append(("memory", "memory.max", str(limits.memory_mib * 2**20)))
    if limits.cpuset is not None:
        writes.append(("cpuset", "cpuset.cpus", limits.cpuset))
    if io:
        parts = [device or ""]
        if limits.io_read_bps is not None:
            parts.append(f"rbps={limits.io_read_bps}")
        if limits.io_write_bps is not None:
            parts.append(f"wbps={limits.io_write_bps}")
        writes.append(("io", "io.max", " ".join(parts)))
    return writes


def block_device(path: Path) -> str:
    """``major:minor`` of the block device holding ``path``."""
    stat = path.stat()
    return f"{os.major(stat.st_dev)}:{os.minor(stat.st_dev)}"


class Cgroups:
    """The cgroups of one cluster under ``root`` (e.g. ``casslab/3fa9c1``)."""

    def __init__(self, hierarchy: Hierarchy, root: str, controllers: Sequence[str]) -> None:
        self.hierarchy = hierarchy
        self.root = root.strip("/")
        self.controllers = list(controllers)

    @classmethod
    def detect(cls, root: str, limits: NodeLimits, mountinfo: Path = MOUNTINFO) -> Cgroups:
        """The cgroups for ``limits`` on this host; :class:`ConfigError` saying what is
        missing and how to get it when a controller is not mounted."""
        hierarchy = read_hierarchy(mountinfo)
        wanted = needed_controllers(limits, hierarchy.version)
        present = available_controllers(hierarchy)
        missing = [c for c in wanted if c not in present]
        if missing:
            raise ConfigError(
                f"the cgroup controller(s) {', '.join(missing)} are not available (cgroup "
                f"v{hierarchy.version}) and isolated nodes need them; "
                f"{mount_hint(hierarchy, missing)}"
            )
        extra = [c for c in OPTIONAL_CONTROLLERS[hierarchy.version] if c in present]
        return cls(hierarchy, root, [*wanted, *(c for c in extra if c not in wanted)])

    def node_path(self, number: int) -> str:
        return f"{self.root}/node{number}"

    def _mount(self, controller: str) -> Path:
        return self.hierarchy.mounts[controller]

    def create(self, number: int, limits: NodeLimits, device: str | None) -> str:
        """Make node ``number``'s cgroup with ``limits``; returns its relative path."""
        relative = self.node_path(number)
        self.create_group(relative, limits, device)
        return relative

    def create_group(self, relative: str, limits: NodeLimits, device: str | None = None) -> None:
        """Make cgroup ``relative`` (any path below the mounts, e.g. :attr:`root` itself
        for a cgroup of one process) with ``limits``."""
        for controller in self.controllers:
            self._make(controller, relative)
        for controller, name, value in limit_writes(limits, self.hierarchy.version, device):
            _write(self._mount(controller) / relative / name, value)

    def _make(self, controller: str, relative: str) -> None:
        """mkdir every level of ``relative``; a new v1 cpuset level inherits its parent's
        CPUs and memory nodes (it starts empty and would refuse tasks); v2 levels get the
        controllers enabled for their children.

        Another casslab may remove a shared level (``casslab/``, once empty: :meth:`remove`)
        between this one's look at it and its mkdir below it: the levels are then made
        again, from the mount down."""
        for attempt in range(_MAKE_ATTEMPTS):
            try:
                self._make_levels(controller, relative)
                return
            except FileNotFoundError:
                if attempt == _MAKE_ATTEMPTS - 1:
                    raise

    def _make_levels(self, controller: str, relative: str) -> None:
        mount = self._mount(controller)
        path = mount
        for part in relative.split("/"):
            parent, path = path, path / part
            if self.hierarchy.version == 2:
                with contextlib.suppress(OSError):
                    _write(
                        parent / "cgroup.subtree_control",
                        " ".join(f"+{c}" for c in self.controllers),
                    )
            if path.is_dir():
                continue
            try:
                path.mkdir()
            except FileExistsError:  # another casslab made it just now
                continue
            if self.hierarchy.version == 1 and controller == "cpuset":
                for name in ("cpuset.cpus", "cpuset.mems"):
                    _write(path / name, (parent / name).read_text().strip())

    def procs_files(self, number: int) -> list[Path]:
        """The ``cgroup.procs`` files a process of node ``number`` is written into."""
        return self.procs_files_of(self.node_path(number))

    def procs_files_of(self, relative: str) -> list[Path]:
        """The ``cgroup.procs`` files a process of cgroup ``relative`` is written into."""
        return [d / "cgroup.procs" for d in self.hierarchy.directories(relative, self.controllers)]

    def pids(self) -> set[int]:
        """Every process in this cluster's cgroups (all nodes)."""
        found: set[int] = set()
        for directory in self.hierarchy.directories(self.root):
            if directory.is_dir():
                for procs in directory.rglob("cgroup.procs"):
                    with contextlib.suppress(OSError):
                        found |= {int(p) for p in procs.read_text().split()}
        return found

    def remove(self, kill_after_s: float = 5.0) -> None:
        """Remove this cluster's cgroups. A process still inside is one of its nodes (or a
        child of one): it is SIGKILLed by PID first, as everything in them is ours."""
        deadline = time.monotonic() + kill_after_s
        while (left := self.pids()) and time.monotonic() < deadline:
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)
        for directory in self.hierarchy.directories(self.root):
            if not directory.is_dir():
                continue
            levels = sorted(
                (p for p in directory.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)
            )
            for level in [*levels, directory]:
                with contextlib.suppress(FileNotFoundError):
                    level.rmdir()
            with contextlib.suppress(OSError):
                directory.parent.rmdir()  # casslab/ itself, once no cluster uses it

    def remove_node(self, number: int) -> None:
        """Remove node ``number``'s cgroups (a node that left the cluster; the others'
        stay)."""
        Cgroups(self.hierarchy, self.node_path(number), self.controllers).remove()


def join(procs_files: Sequence[Path]) -> Callable[[], None]:
    """A ``preexec_fn`` that moves the child into the cgroups before it runs anything, so
    not one instruction of the node runs outside its limits."""
    paths = [str(p) for p in procs_files]

    def enter() -> None:
        pid = str(os.getpid())
        for path in paths:
            with open(path, "w") as out:
                out.write(pid)

    return enter


def _write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError as error:
        raise ConfigError(f"cannot write {value!r} to {path}: {error.strerror or error}") from error
