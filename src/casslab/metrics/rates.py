"""Pure computations from two consecutive readings of cumulative counters.

No I/O here: the samplers read raw counters and hand them to these functions, which the
tests drive with literal readings.
"""

from __future__ import annotations

from typing import NamedTuple

SECTOR_BYTES = 512
"""/proc/diskstats counts sectors of 512 bytes whatever the device's sector size."""


def rate_per_s(prev: float, cur: float, dt_s: float) -> float | None:
    """``(cur - prev) / dt_s``; None when the interval is empty or the counter went back
    (a restarted process resets its counters: no rate can be told for that interval)."""
    if dt_s <= 0 or cur < prev:
        return None
    return (cur - prev) / dt_s


def busy_pct(prev_cpu_s: float, cur_cpu_s: float, dt_s: float) -> float | None:
    """CPU seconds used over wall seconds, as % of one core (200 = two cores busy)."""
    r = rate_per_s(prev_cpu_s, cur_cpu_s, dt_s)
    return None if r is None else 100.0 * r


def mean_per_event(
    prev_total: float, cur_total: float, prev_n: float, cur_n: float
) -> float | None:
    """Mean amount per event in an interval from a total and an event count, e.g. the mean
    latency from ``TotalLatency`` and ``Count``; None when no event happened (or a reset)."""
    dn = cur_n - prev_n
    dt = cur_total - prev_total
    if dn <= 0 or dt < 0:
        return None
    return dt / dn


class CpuTimes(NamedTuple):
    """Host CPU seconds since boot, summed over CPUs (psutil.cpu_times fields)."""

    user: float
    nice: float
    system: float
    idle: float
    iowait: float
    irq: float
    softirq: float
    steal: float


def cpu_pcts(prev: CpuTimes, cur: CpuTimes) -> dict[str, float] | None:
    """Host CPU shares over the interval, % of all CPUs (as sar shows them); None when no
    time elapsed.

    guest time is already inside user on Linux, so it is not added again.
    """
    d = CpuTimes(*(c - p for c, p in zip(cur, prev, strict=True)))
    total = sum(d)
    if total <= 0:
        return None
    user = 100.0 * (d.user + d.nice) / total
    system = 100.0 * (d.system + d.irq + d.softirq) / total
    idle = 100.0 * d.idle / total
    iowait = 100.0 * d.iowait / total
    steal = 100.0 * d.steal / total
    return {
        "host.cpu_user_pct": user,
        "host.cpu_system_pct": system,
        "host.cpu_idle_pct": idle,
        "host.cpu_iowait_pct": iowait,
        "host.cpu_steal_pct": steal,
        "host.cpu_busy_pct": max(0.0, 100.0 - idle - iowait),
    }


def busy_core_pct(prev: CpuTimes, cur: CpuTimes, dt_s: float, cpus: int) -> float | None:
    """CPU time the host used over ``dt_s`` wall seconds, % of ONE core (200 = two cores
    busy): ``cpus x dt - idle - iowait - steal``, over ``dt``; None for an empty interval.

    Not the busy share of the /proc/stat total: a tickless kernel measures idle time
    exactly but samples user and system time at its ticks, and under a bursty load the
    fields add up to less than the wall time (measured here: 170 % of 200 %), so the
    share under-states the busy time. Counted this way the host's busy time is comparable
    with a process's CPU time (exact, from the scheduler), and ``host - processes`` is
    what the other processes and the kernel used."""
    if dt_s <= 0:
        return None
    free = (cur.idle - prev.idle) + (cur.iowait - prev.iowait) + (cur.steal - prev.steal)
    return max(0.0, min(100.0 * cpus, 100.0 * (cpus * dt_s - free) / dt_s))


class DiskStats(NamedTuple):
    """The cumulative fields of one /proc/diskstats line that casslab uses."""

    reads: int
    sectors_read: int
    read_ms: int
    writes: int
    sectors_written: int
    write_ms: int
    io_ms: int


def parse_diskstats(text: str, device: str) -> DiskStats | None:
    """The counters of ``device`` (e.g. ``vda``) in /proc/diskstats text; None if absent."""
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 14 and f[2] == device:
            return DiskStats(
                reads=int(f[3]),
                sectors_read=int(f[5]),
                read_ms=int(f[6]),
                writes=int(f[7]),
                sectors_written=int(f[9]),
                write_ms=int(f[10]),
                io_ms=int(f[12]),
            )
    return None


def disk_rates(prev: DiskStats, cur: DiskStats, dt_s: float) -> dict[str, float] | None:
    """iostat-style figures for one device over the interval; None when they cannot be told
    (no time elapsed, or counters went back)."""
    d = DiskStats(*(c - p for c, p in zip(cur, prev, strict=True)))
    if dt_s <= 0 or min(d) < 0:
        return None
    ios = d.reads + d.writes
    return {
        "host.disk_read_bytes_per_s": d.sectors_read * SECTOR_BYTES / dt_s,
        "host.disk_write_bytes_per_s": d.sectors_written * SECTOR_BYTES / dt_s,
        "host.disk_reads_per_s": d.reads / dt_s,
        "host.disk_writes_per_s": d.writes / dt_s,
        "host.disk_await_ms": (d.read_ms + d.write_ms) / ios if ios else 0.0,
        "host.disk_util_pct": min(100.0, 100.0 * d.io_ms / (dt_s * 1000.0)),
    }


class CounterTracker:
    """Remembers the last reading of named counters and turns new readings into rates.

    ``update(key, value, t)`` returns the per-second rate since the previous reading of
    ``key`` (None for the first reading or after a reset). Pure in-memory state.
    """

    def __init__(self) -> None:
        self._last: dict[str, tuple[float, float]] = {}

    def update(self, key: str, value: float, t: float) -> float | None:
        prev = self._last.get(key)
        self._last[key] = (t, value)
        if prev is None:
            return None
        return rate_per_s(prev[1], value, t - prev[0])

    def forget(self, key: str) -> None:
        self._last.pop(key, None)
