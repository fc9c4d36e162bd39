"""Host sampler: CPU, load, memory, the data directory's filesystem and block device, network.

One instance per distinct data device; its values are recorded under every node label that
keeps its data there (the nodes of a local cluster share one host).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import psutil

from casslab.metrics.rates import (
    CounterTracker,
    CpuTimes,
    DiskStats,
    busy_core_pct,
    cpu_pcts,
    disk_rates,
    parse_diskstats,
)
from casslab.metrics.source import Sample, SourceUnavailableError

log = logging.getLogger(__name__)

DISKSTATS = Path("/proc/diskstats")


def block_device_of(path: str) -> str | None:
    """Kernel name (as in /proc/diskstats, e.g. ``vda``, ``nvme0n1p2``) of the block device
    holding ``path``; None when it has none (tmpfs, overlay on a network share...)."""
    st = os.stat(path)
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    sys_link = Path(f"/sys/dev/block/{major}:{minor}")
    if major != 0 and sys_link.exists():
        return sys_link.resolve().name
    # Filesystems with anonymous st_dev (btrfs, overlay): take the mount's source device.
    best: tuple[int, str] | None = None
    real = os.path.realpath(path)
    for part in psutil.disk_partitions(all=True):
        mp = part.mountpoint
        inside = real == mp or real.startswith(mp.rstrip("/") + "/")
        if inside and part.device.startswith("/dev/") and (best is None or len(mp) > best[0]):
            best = (len(mp), os.path.basename(os.path.realpath(part.device)))
    return None if best is None else best[1]


def _cpu_times() -> CpuTimes:
    t = psutil.cpu_times()
    return CpuTimes(
        user=t.user,
        nice=getattr(t, "nice", 0.0),
        system=t.system,
        idle=t.idle,
        iowait=getattr(t, "iowait", 0.0),
        irq=getattr(t, "irq", 0.0),
        softirq=getattr(t, "softirq", 0.0),
        steal=getattr(t, "steal", 0.0),
    )


class HostSource:
    """Samples the host for the nodes ``labels`` whose data lives under ``data_dir``."""

    def __init__(self, labels: list[str], data_dir: str) -> None:
        self._labels = list(labels)
        self._data_dir = data_dir
        self._device = block_device_of(data_dir)
        if self._device is None:
            log.warning("no block device found for %s: disk I/O metrics are left out", data_dir)
        self._cpus = psutil.cpu_count() or 1
        self._prev_cpu: tuple[float, CpuTimes] | None = None  # (monotonic s, times)
        self._prev_disk: tuple[float, DiskStats] | None = None
        self._net = CounterTracker()

    @property
    def name(self) -> str:
        return "host"

    @property
    def node(self) -> str:
        return ",".join(self._labels)

    @property
    def device(self) -> str | None:
        return self._device

    def sample(self, now: float) -> list[Sample]:
        try:
            values = self._read(now)
        except (OSError, psutil.Error) as e:
            raise SourceUnavailableError(f"reading host metrics for {self._data_dir}: {e}") from e
        return [Sample(now, lbl, k, v) for lbl in self._labels for k, v in values.items()]

    def _read(self, now: float) -> dict[str, float]:
        out: dict[str, float] = {}
        read_at, cpu = time.monotonic(), _cpu_times()
        if self._prev_cpu is not None:
            prev_at, prev = self._prev_cpu
            pcts = cpu_pcts(prev, cpu)
            if pcts is not None:
                out.update(pcts)
            cores = busy_core_pct(prev, cpu, read_at - prev_at, self._cpus)
            if cores is not None:
                out["host.cpu_busy_core_pct"] = cores
        self._prev_cpu = (read_at, cpu)
        out["host.load_1m"] = os.getloadavg()[0]
        vm = psutil.virtual_memory()
        out["host.memory_used_bytes"] = float(vm.total - vm.available)
        out["host.memory_cached_bytes"] = float(getattr(vm, "cached", 0))
        out["host.memory_available_bytes"] = float(vm.available)
        out["host.disk_used_pct"] = psutil.disk_usage(self._data_dir).percent
        if self._device is not None:
            disk = parse_diskstats(DISKSTATS.read_text(), self._device)
            if disk is not None:
                if self._prev_disk is not None:
                    rates = disk_rates(self._prev_disk[1], disk, now - self._prev_disk[0])
                    if rates is not None:
                        out.update(rates)
                self._prev_disk = (now, disk)
        net = psutil.net_io_counters()
        rx = self._net.update("rx", float(net.bytes_recv), now)
        tx = self._net.update("tx", float(net.bytes_sent), now)
        if rx is not None:
            out["host.net_rx_bytes_per_s"] = rx
        if tx is not None:
            out["host.net_tx_bytes_per_s"] = tx
        return out

    def close(self) -> None:
        return None
