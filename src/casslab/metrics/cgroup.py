"""cgroup sampler: CPU usage, throttled time and memory of the cgroup a node runs in.

Supports cgroup v1 (``cpuacct.usage``, ``cpu.stat`` throttled_time, ``memory.usage_in_bytes``
under the per-controller mounts, including the co-mounted ``cpu,cpuacct``) and cgroup v2
(``cpu.stat`` usage_usec / throttled_usec, ``memory.current``).
"""

from __future__ import annotations

from pathlib import Path

from casslab.errors import ConfigError
from casslab.metrics.rates import busy_pct
from casslab.metrics.source import Sample, SourceUnavailableError

CGROUP_ROOT = Path("/sys/fs/cgroup")


def parse_flat_keyed(text: str) -> dict[str, int]:
    """``key value`` lines (cpu.stat, memory.stat) as a dict."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


class CgroupPaths:
    """The files to read for one cgroup, v1 or v2."""

    def __init__(self, cgroup: str, root: Path = CGROUP_ROOT) -> None:
        rel = cgroup.strip("/")
        self.version: int
        v2_dir = root / rel
        if (root / "cgroup.controllers").exists() and (v2_dir / "cpu.stat").exists():
            self.version = 2
            self.cpu_usage = v2_dir / "cpu.stat"
            self.cpu_stat = v2_dir / "cpu.stat"
            self.memory = v2_dir / "memory.current"
            return
        self.version = 1
        cpuacct = self._first(root, ("cpuacct", "cpu,cpuacct", "cpuacct,cpu"), rel, "cpuacct.usage")
        cpu = self._first(root, ("cpu", "cpu,cpuacct", "cpuacct,cpu"), rel, "cpu.stat")
        mem = self._first(root, ("memory",), rel, "memory.usage_in_bytes")
        if cpuacct is None or cpu is None or mem is None:
            raise ConfigError(
                f"cgroup {cgroup!r} not found under {root} (looked for cgroup v2 cpu.stat and "
                "v1 cpuacct.usage, cpu.stat, memory.usage_in_bytes): give the path relative to "
                "the cgroup mount, e.g. 'casslab/node1', of a cgroup that exists"
            )
        self.cpu_usage, self.cpu_stat, self.memory = cpuacct, cpu, mem

    @staticmethod
    def _first(root: Path, mounts: tuple[str, ...], rel: str, file: str) -> Path | None:
        for m in mounts:
            p = root / m / rel / file
            if p.exists():
                return p
        return None


class CgroupSource:
    """Samples the cgroup ``cgroup`` (relative path) for node ``label``."""

    def __init__(self, label: str, cgroup: str, root: Path = CGROUP_ROOT) -> None:
        self._label = label
        self._cgroup = cgroup
        self._paths = CgroupPaths(cgroup, root)
        self._prev_cpu: tuple[float, float] | None = None

    @property
    def name(self) -> str:
        return "cgroup"

    @property
    def node(self) -> str:
        return self._label

    def _read_cpu_s(self) -> tuple[float, float]:
        """(CPU seconds used, seconds throttled)."""
        stat = parse_flat_keyed(self._paths.cpu_stat.read_text())
        if self._paths.version == 2:
            return stat.get("usage_usec", 0) / 1e6, stat.get("throttled_usec", 0) / 1e6
        usage_ns = int(self._paths.cpu_usage.read_text().strip())
        return usage_ns / 1e9, stat.get("throttled_time", 0) / 1e9

    def sample(self, now: float) -> list[Sample]:
        try:
            cpu_s, throttled_s = self._read_cpu_s()
            mem = float(int(self._paths.memory.read_text().strip()))
        except (OSError, ValueError) as e:
            raise SourceUnavailableError(f"reading cgroup {self._cgroup}: {e}") from e
        out: list[Sample] = []
        if self._prev_cpu is not None:
            pct = busy_pct(self._prev_cpu[1], cpu_s, now - self._prev_cpu[0])
            if pct is not None:
                out.append(Sample(now, self._label, "cgroup.cpu_usage_pct", pct))
        self._prev_cpu = (now, cpu_s)
        out.append(Sample(now, self._label, "cgroup.cpu_throttled_s", throttled_s))
        out.append(Sample(now, self._label, "cgroup.memory_usage_bytes", mem))
        return out

    def close(self) -> None:
        return None
