"""How much CPU a process may use here: its CPU affinity, capped by the CFS quota of its
own cgroup (v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``, v2 ``cpu.max``); and the CPU
time a process has used so far. ``casslab stress`` reads both of its load engine while it
runs. Only the process's own cgroup is read,
not its ancestors'."""

from __future__ import annotations

import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def cgroup_of(proc_cgroup: str, controller: str) -> tuple[int, str] | None:
    """(version, path) of the cgroup a ``/proc/PID/cgroup`` text puts the process in for
    ``controller`` (v1: its own line; v2: the ``0::`` line); None when neither is there."""
    unified = None
    for line in proc_cgroup.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if controller in controllers.split(","):
            return (1, path)
        if number == "0" and controllers == "":
            unified = (2, path)
    return unified


def quota_cores(quota: str, period: str) -> float | None:
    """Cores a CFS quota allows (``-1`` or ``max``: no quota)."""
    if quota.strip() in ("-1", "max"):
        return None
    return int(quota) / int(period)


def cpu_max_cores(text: str) -> float | None:
    """Cores a v2 cgroup's ``cpu.max`` allows (``50000 100000``: half a core; ``max``: no
    quota; the period left out: the kernel's default 100 ms)."""
    quota, _, period = text.strip().partition(" ")
    return quota_cores(quota, period or "100000")


def _quota_of(version: int, path: str) -> float | None:
    try:
        if version == 1:
            base = CGROUP_ROOT / "cpu" / path.lstrip("/")
            return quota_cores(
                (base / "cpu.cfs_quota_us").read_text(), (base / "cpu.cfs_period_us").read_text()
            )
        return cpu_max_cores((CGROUP_ROOT / path.lstrip("/") / "cpu.max").read_text())
    except (OSError, ValueError):
        return None  # no cpu controller there: no quota casslab can see


def cpus_allowed(pid: int = 0) -> float:
    """The CPUs process ``pid`` (0: this one) may use: its affinity, capped by its
    cgroup's quota. OSError when the process is gone."""
    cpus = float(len(os.sched_getaffinity(pid)))
    try:
        found = cgroup_of(Path(f"/proc/{pid or 'self'}/cgroup").read_text(), "cpu")
    except OSError:
        return cpus
    quota = None if found is None else _quota_of(*found)
    return cpus if quota is None else min(cpus, quota)


def stat_cpu_ticks(stat: str) -> int:
    """utime + stime (fields 14 and 15, clock ticks) of a ``/proc/PID/stat`` line; the
    command name in parentheses may hold spaces: fields are counted from the last ``)``."""
    rest = stat.rpartition(")")[2].split()
    return int(rest[11]) + int(rest[12])


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds process ``pid`` has used (OSError when it is gone)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat_cpu_ticks(stat) / os.sysconf("SC_CLK_TCK")
