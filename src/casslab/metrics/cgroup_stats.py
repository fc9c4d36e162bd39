"""Pure side of the cgroup sampler: the text of cgroup files parsed, and two readings of one
cgroup turned into the interval's values (``docker stats`` and a bit more).

No I/O here: :mod:`casslab.metrics.cgroup` reads the files into a :class:`CgroupReading`;
the tests drive these functions with literal file texts and readings.
"""

from __future__ import annotations

from typing import NamedTuple

from casslab.metrics.rates import busy_pct, rate_per_s

UNLIMITED_V1_BYTES = 1 << 62
"""cgroup v1 has no "max": an unlimited memory.limit_in_bytes reads as the largest page
multiple of a signed 64-bit number (9223372036854771712 with 4 KiB pages). Anything from
4 EiB up is taken as "no limit"."""


def parse_flat_keyed(text: str) -> dict[str, int]:
    """``key value`` lines (cpu.stat, memory.stat) as a dict."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


def parse_memory_limit(text: str) -> int | None:
    """memory.limit_in_bytes (v1) or memory.max (v2) in bytes; None when unlimited
    (v2 ``max``, v1 a value of 4 EiB or more)."""
    value = text.strip()
    if value == "max" or not value.isdigit():
        return None
    limit = int(value)
    return None if limit >= UNLIMITED_V1_BYTES else limit


def parse_blkio_v1(text: str) -> tuple[int, int]:
    """(bytes read, bytes written) summed over devices from a v1
    ``blkio.throttle.io_service_bytes`` file (``8:0 Read 4096`` lines; the ``Total`` line
    and the Sync, Async, Discard and per-device Total lines are left out)."""
    read = write = 0
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 3 or not parts[2].isdigit():
            continue
        if parts[1] == "Read":
            read += int(parts[2])
        elif parts[1] == "Write":
            write += int(parts[2])
    return read, write


def parse_io_stat_v2(text: str) -> tuple[int, int]:
    """(bytes read, bytes written) summed over devices from a v2 ``io.stat`` file
    (``8:0 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0`` lines)."""
    read = write = 0
    for line in text.splitlines():
        for field in line.split()[1:]:
            key, _, value = field.partition("=")
            if not value.isdigit():
                continue
            if key == "rbytes":
                read += int(value)
            elif key == "wbytes":
                write += int(value)
    return read, write


def count_lines(text: str) -> int:
    """Non-empty lines: the tasks of a ``tasks`` or ``cgroup.threads`` file."""
    return sum(1 for line in text.splitlines() if line.strip())


class CgroupReading(NamedTuple):
    """One reading of a cgroup's files; None where the machine has no such file.

    Cumulative: ``cpu_s``, ``throttled_s`` (seconds), ``periods``, ``throttled_periods``
    (CFS quota periods that ran, and those in which the cgroup was throttled),
    ``read_bytes`` and ``written_bytes`` (block I/O). The rest are values at the instant;
    ``cpu_limit_cpus`` is the CPUs the cgroup's own quota allows (None: no quota).
    """

    cpu_s: float | None = None
    throttled_s: float | None = None
    periods: int | None = None
    throttled_periods: int | None = None
    memory_bytes: int | None = None
    memory_limit_bytes: int | None = None
    cache_bytes: int | None = None
    rss_bytes: int | None = None
    read_bytes: int | None = None
    written_bytes: int | None = None
    pids: int | None = None
    cpu_limit_cpus: float | None = None


def throttled_periods_pct(
    prev_periods: float, cur_periods: float, prev_throttled: float, cur_throttled: float
) -> float | None:
    """Share of the CFS periods of the interval in which the cgroup was throttled, %; 0
    when no period ran (no quota, or nothing to run); None after a reset."""
    periods = cur_periods - prev_periods
    throttled = cur_throttled - prev_throttled
    if periods < 0 or throttled < 0:
        return None
    return 100.0 * throttled / periods if periods else 0.0


def _pair(prev: float | None, cur: float | None) -> tuple[float, float] | None:
    return None if prev is None or cur is None else (prev, cur)


def interval_values(
    prev: CgroupReading | None, cur: CgroupReading, dt_s: float
) -> dict[str, float]:
    """The ``cgroup.*`` catalogue values of reading ``cur``, ``dt_s`` seconds after
    ``prev`` (None for the first reading: values at the instant only). A value whose file
    is missing, or whose counter went back, is left out."""
    out: dict[str, float] = {}
    for name, value in (
        ("cgroup.cpu_throttled_s", cur.throttled_s),
        ("cgroup.cpu_limit_cpus", cur.cpu_limit_cpus),
        ("cgroup.memory_usage_bytes", cur.memory_bytes),
        ("cgroup.memory_limit_bytes", cur.memory_limit_bytes),
        ("cgroup.memory_cache_bytes", cur.cache_bytes),
        ("cgroup.memory_rss_bytes", cur.rss_bytes),
        ("cgroup.pids", cur.pids),
    ):
        if value is not None:
            out[name] = float(value)
    if prev is None or dt_s <= 0:
        return out
    for name, pair, per_s in (
        ("cgroup.cpu_usage_pct", _pair(prev.cpu_s, cur.cpu_s), busy_pct),
        ("cgroup.cpu_throttled_pct", _pair(prev.throttled_s, cur.throttled_s), busy_pct),
        ("cgroup.block_read_bytes_per_s", _pair(prev.read_bytes, cur.read_bytes), rate_per_s),
        (
            "cgroup.block_write_bytes_per_s",
            _pair(prev.written_bytes, cur.written_bytes),
            rate_per_s,
        ),
    ):
        rate = None if pair is None else per_s(pair[0], pair[1], dt_s)
        if rate is not None:
            out[name] = rate
    periods = _pair(prev.periods, cur.periods)
    throttled = _pair(prev.throttled_periods, cur.throttled_periods)
    if periods is not None and throttled is not None:
        share = throttled_periods_pct(*periods, *throttled)
        if share is not None:
            out["cgroup.cpu_throttled_periods_pct"] = share
    return out
