"""cgroup sampler: what ``docker stats`` shows of the cgroup a node runs in, and a bit more.

CPU usage, throttling and quota, memory usage, limit, page cache and RSS, block I/O and the number
of tasks. cgroup v1 reads each controller's own mount (``cpuacct``, ``cpu``, including the
co-mounted ``cpu,cpuacct``, ``memory``, ``blkio``, ``pids``); cgroup v2 the one unified
directory. A controller or file the machine lacks leaves its metrics out; which file each
metric comes from is in :mod:`casslab.metrics.catalogue`. The parsing and the arithmetic
are in :mod:`casslab.metrics.cgroup_stats`.
"""

from __future__ import annotations

from pathlib import Path

from casslab.errors import ConfigError
from casslab.host.cpu_allowance import cpu_max_cores, quota_cores
from casslab.metrics.cgroup_stats import (
    CgroupReading,
    count_lines,
    interval_values,
    parse_blkio_v1,
    parse_flat_keyed,
    parse_io_stat_v2,
    parse_memory_limit,
)
from casslab.metrics.source import Sample, SourceUnavailableError

CGROUP_ROOT = Path("/sys/fs/cgroup")

_CPUACCT = ("cpuacct", "cpu,cpuacct", "cpuacct,cpu")
_CPU = ("cpu", "cpu,cpuacct", "cpuacct,cpu")
# The throttle files count every bio whatever the I/O scheduler; the scheduler's own
# blkio.io_service_bytes (cfq, bfq) stay empty under another scheduler or none. But the
# throttle files count only where a throttle rule is set (measured on kernel 6.18: a node
# writing 20 MB/s read 0 without a rule), so without one the block metrics are left out
# rather than reported as a false 0; the per-process disk bytes (/proc/<pid>/io) remain.
_BLKIO_FILES = ("blkio.throttle.io_service_bytes_recursive", "blkio.throttle.io_service_bytes")
_BLKIO_RULES = (
    "blkio.throttle.read_bps_device",
    "blkio.throttle.write_bps_device",
    "blkio.throttle.read_iops_device",
    "blkio.throttle.write_iops_device",
)


def _has_throttle_rule(directory: Path) -> bool:
    """Whether a v1 blkio cgroup has a throttle rule (its I/O counters count only then)."""
    for name in _BLKIO_RULES:
        try:
            if (directory / name).read_text().strip():
                return True
        except OSError:
            continue
    return False


class CgroupPaths:
    """The files to read for one cgroup, v1 or v2; a file the machine lacks is None.

    ``cpu_usage`` is v1 ``cpuacct.usage`` (ns) and v2 ``cpu.stat`` (usage_usec); ``tasks``
    is where to count tasks without the pids controller (v1 ``tasks``, v2
    ``cgroup.threads``: threads, as pids.current counts them). ``cpu_quota`` is v2
    ``cpu.max`` or v1 ``cpu.cfs_quota_us`` (then ``cpu_period`` is ``cpu.cfs_period_us``):
    the cgroup's own quota, not its ancestors'.
    """

    def __init__(self, cgroup: str, root: Path = CGROUP_ROOT) -> None:
        rel = cgroup.strip("/")
        v2_dir = root / rel
        if (root / "cgroup.controllers").exists() and v2_dir.is_dir():
            self.version = 2
            self.cpu_usage = self._file(v2_dir, "cpu.stat")
            self.cpu_stat = self.cpu_usage
            self.cpu_quota = self._file(v2_dir, "cpu.max")
            self.cpu_period: Path | None = None
            self.memory = self._file(v2_dir, "memory.current")
            self.memory_limit = self._file(v2_dir, "memory.max")
            self.memory_stat = self._file(v2_dir, "memory.stat")
            self.io = self._file(v2_dir, "io.stat")
            self.pids = self._file(v2_dir, "pids.current")
            self.tasks = self._file(v2_dir, "cgroup.threads")
        else:
            self.version = 1
            self.cpu_usage = self._first(root, _CPUACCT, rel, ("cpuacct.usage",))
            self.cpu_stat = self._first(root, _CPU, rel, ("cpu.stat",))
            self.cpu_quota = self._first(root, _CPU, rel, ("cpu.cfs_quota_us",))
            self.cpu_period = self._first(root, _CPU, rel, ("cpu.cfs_period_us",))
            self.memory = self._first(root, ("memory",), rel, ("memory.usage_in_bytes",))
            self.memory_limit = self._first(root, ("memory",), rel, ("memory.limit_in_bytes",))
            self.memory_stat = self._first(root, ("memory",), rel, ("memory.stat",))
            self.io = self._first(root, ("blkio",), rel, _BLKIO_FILES)
            if self.io is not None and not _has_throttle_rule(self.io.parent):
                self.io = None
            self.pids = self._first(root, ("pids",), rel, ("pids.current",))
            self.tasks = self._first(root, (*_CPU, "memory", "blkio"), rel, ("tasks",))
        if not self.found:
            raise ConfigError(
                f"cgroup {cgroup!r} not found under {root} (looked for a cgroup v2 directory "
                "and the v1 cpu, cpuacct, memory, blkio and pids controllers): give the path "
                "relative to the cgroup mounts, e.g. 'casslab/node1', of a cgroup that exists"
            )

    @property
    def files(self) -> tuple[Path | None, ...]:
        return (
            self.cpu_usage,
            self.cpu_stat,
            self.cpu_quota,
            self.cpu_period,
            self.memory,
            self.memory_limit,
            self.memory_stat,
            self.io,
            self.pids,
            self.tasks,
        )

    @property
    def found(self) -> bool:
        """Whether any file of the cgroup exists."""
        return any(f is not None for f in self.files)

    @staticmethod
    def _file(directory: Path, name: str) -> Path | None:
        path = directory / name
        return path if path.exists() else None

    @staticmethod
    def _first(
        root: Path, mounts: tuple[str, ...], rel: str, files: tuple[str, ...]
    ) -> Path | None:
        for file in files:
            for m in mounts:
                p = root / m / rel / file
                if p.exists():
                    return p
        return None


def _text(path: Path | None) -> str | None:
    return None if path is None else path.read_text()


def _int(path: Path | None) -> int | None:
    text = _text(path)
    return None if text is None else int(text.strip())


def read_cgroup(paths: CgroupPaths) -> CgroupReading:
    """One reading of every file ``paths`` found. Raises OSError when a file that was
    there is gone (the cgroup was removed), ValueError when one holds no number."""
    v2 = paths.version == 2
    cpu_stat = parse_flat_keyed(_text(paths.cpu_stat) or "")
    if v2:
        usage_us = cpu_stat.get("usage_usec")
        cpu_s = None if usage_us is None else usage_us / 1e6
        throttled_us = cpu_stat.get("throttled_usec")
        throttled_s = None if throttled_us is None else throttled_us / 1e6
    else:
        usage_ns = _int(paths.cpu_usage)
        cpu_s = None if usage_ns is None else usage_ns / 1e9
        throttled_ns = cpu_stat.get("throttled_time")
        throttled_s = None if throttled_ns is None else throttled_ns / 1e9
    mem_stat = parse_flat_keyed(_text(paths.memory_stat) or "")
    # v1 memory.stat: total_* count the descendants too, as memory.usage_in_bytes does
    cache = mem_stat.get("file") if v2 else mem_stat.get("total_cache", mem_stat.get("cache"))
    rss = mem_stat.get("anon") if v2 else mem_stat.get("total_rss", mem_stat.get("rss"))
    limit_text = _text(paths.memory_limit)
    io_text = _text(paths.io)
    io = None if io_text is None else (parse_io_stat_v2 if v2 else parse_blkio_v1)(io_text)
    quota_text, period_text = _text(paths.cpu_quota), _text(paths.cpu_period)
    if quota_text is None:
        cpu_limit = None
    elif v2:
        cpu_limit = cpu_max_cores(quota_text)
    else:
        cpu_limit = None if period_text is None else quota_cores(quota_text, period_text)
    pids = _int(paths.pids)
    if pids is None:
        tasks_text = _text(paths.tasks)
        pids = None if tasks_text is None else count_lines(tasks_text)
    return CgroupReading(
        cpu_s=cpu_s,
        throttled_s=throttled_s,
        periods=cpu_stat.get("nr_periods"),
        throttled_periods=cpu_stat.get("nr_throttled"),
        memory_bytes=_int(paths.memory),
        memory_limit_bytes=None if limit_text is None else parse_memory_limit(limit_text),
        cache_bytes=cache,
        rss_bytes=rss,
        read_bytes=None if io is None else io[0],
        written_bytes=None if io is None else io[1],
        pids=pids,
        cpu_limit_cpus=cpu_limit,
    )


class CgroupSource:
    """Samples the cgroup ``cgroup`` (relative path) for node ``label``."""

    def __init__(self, label: str, cgroup: str, root: Path = CGROUP_ROOT) -> None:
        self._label = label
        self._cgroup = cgroup
        self._paths = CgroupPaths(cgroup, root)
        self._prev: tuple[float, CgroupReading] | None = None

    @property
    def name(self) -> str:
        return "cgroup"

    @property
    def node(self) -> str:
        return self._label

    @property
    def paths(self) -> CgroupPaths:
        return self._paths

    def sample(self, now: float) -> list[Sample]:
        try:
            reading = read_cgroup(self._paths)
        except (OSError, ValueError) as e:
            self._prev = None
            raise SourceUnavailableError(f"reading cgroup {self._cgroup}: {e}") from e
        if self._prev is None:
            values = interval_values(None, reading, 0.0)
        else:
            values = interval_values(self._prev[1], reading, now - self._prev[0])
        self._prev = (now, reading)
        return [Sample(now, self._label, name, value) for name, value in values.items()]

    def close(self) -> None:
        return None
