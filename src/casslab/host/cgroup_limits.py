"""The limits a cgroup enforces on what runs in it (a node, the load engine): CPU quota,
cpuset, memory and block-I/O throttles, as a typed record (pure)."""

from __future__ import annotations

from casslab.record import Record


class NodeLimits(Record):
    """What each node's cgroup enforces (None: no limit of that kind)."""

    size: str | None = None  # the VM-size profile the limits come from, e.g. t2.small
    cpus: float | None = None  # CPU quota in cores (cpu.cfs_quota_us / cpu.max)
    memory_mib: int | None = None  # memory limit (memory.limit_in_bytes / memory.max)
    cpuset: str | None = None  # host CPUs the node may run on, e.g. "1" or "0-1"
    io_read_bps: int | None = None  # block-I/O throttle on the data device, bytes/s
    io_write_bps: int | None = None

    def describe(self) -> str:
        """One line for ``up``: ``t2.small: 1 CPU, 2048 MiB``."""
        text = ", ".join(self._parts(compact=False)) or "no limits"
        return f"{self.size}: {text}" if self.size else text

    def short(self) -> str:
        """A few characters for a table cell: ``0.5cpu 2048M``."""
        return " ".join(self._parts(compact=True)) or "-"

    def _parts(self, *, compact: bool) -> list[str]:
        parts: list[str] = []
        if self.cpus is not None:
            parts.append(f"{self.cpus:g}cpu" if compact else f"{self.cpus:g} CPU")
        if self.memory_mib is not None:
            parts.append(f"{self.memory_mib}M" if compact else f"{self.memory_mib} MiB")
        if self.cpuset is not None:
            parts.append(f"cpus={self.cpuset}" if compact else f"cpuset {self.cpuset}")
        for name, rate in (("read", self.io_read_bps), ("write", self.io_write_bps)):
            if rate is not None:
                parts.append(
                    f"{name[0]}={rate / 2**20:g}M/s"
                    if compact
                    else f"{name} {rate / 2**20:g} MiB/s"
                )
        return parts

    @property
    def limited(self) -> bool:
        return any(
            v is not None
            for v in (self.cpus, self.memory_mib, self.cpuset, self.io_read_bps, self.io_write_bps)
        )
