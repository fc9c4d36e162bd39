"""Host and process samplers without an agent: they read /proc through a
:class:`~casslab.metrics.proc_reader.ProcReader` (one round trip a sample) and emit the
metrics of :class:`~casslab.metrics.host.HostSource` and
:class:`~casslab.metrics.process.ProcessSource`, with the same names, units and
computations (:mod:`casslab.metrics.rates`).

Rates are taken over the host's own clock, /proc/uptime, read in the same round trip as
the counters: the time a reading takes to travel does not enter them. A process is its
PID plus its start time (field 22 of /proc/<pid>/stat): once seen (or as told by whoever
started it), another process that gets the PID later is never read as it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.metrics.proc_reader import HostFacts, ProcRead, ProcReader
from casslab.metrics.proc_text import (
    ProcTextError,
    count_cpus,
    create_time_s,
    net_totals,
    parse_cpu_times,
    parse_loadavg,
    parse_meminfo,
    parse_net_dev,
    parse_proc_io,
    parse_proc_stat,
    parse_proc_status,
    parse_uptime,
)
from casslab.metrics.rates import (
    CounterTracker,
    CpuTimes,
    DiskStats,
    busy_core_pct,
    busy_pct,
    cpu_pcts,
    disk_rates,
    parse_diskstats,
)
from casslab.metrics.source import Sample, SourceUnavailableError

if TYPE_CHECKING:
    from casslab.metrics.jmx import JmxClient

UPTIME = "/proc/uptime"
HOST_FILES = ("/proc/stat", "/proc/loadavg", "/proc/meminfo", "/proc/net/dev", UPTIME)
DISKSTATS = "/proc/diskstats"


@dataclass(frozen=True)
class RemoteNode:
    """How to reach a node's host without an agent: the reader of its /proc, the start
    time (clock ticks after boot, /proc/<pid>/stat field 22) of its process when whoever
    started it recorded one (:class:`casslab.remote.ssh.RemoteProcess`), and the JMX
    client whose helper runs on that host (None: the CQL stand-ins)."""

    reader: ProcReader
    start_ticks: int | None = None
    jmx: JmxClient | None = None


def _need(read: ProcRead, path: str, where: str) -> str:
    text = read.files.get(path)
    if text is None:
        raise SourceUnavailableError(f"reading {path} on {where}: the file could not be read")
    return text


class RemoteHostSource:
    """Samples the host ``reader`` reads, for the nodes ``labels`` whose data lives under
    ``data_dir`` there."""

    def __init__(self, labels: list[str], data_dir: str, reader: ProcReader) -> None:
        self._labels = list(labels)
        self._data_dir = data_dir
        self._reader = reader
        self._facts: HostFacts | None = None
        self._device: str | None = None
        self._prev_cpu: tuple[float, CpuTimes] | None = None  # (uptime s, times)
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

    def _setup(self) -> HostFacts:
        """The host's facts and the data directory's device, told once (retried on the
        next sample when the host could not be reached)."""
        if self._facts is None:
            facts = self._reader.facts()
            self._device = self._reader.block_device(self._data_dir)
            self._facts = facts
        return self._facts

    def sample(self, now: float) -> list[Sample]:
        facts = self._setup()
        paths = HOST_FILES if self._device is None else (*HOST_FILES, DISKSTATS)
        read = self._reader.read(paths, fs=(self._data_dir,), at=now)
        try:
            values = self._values(read, facts)
        except ProcTextError as e:
            raise SourceUnavailableError(f"host metrics of {self._reader.where}: {e}") from e
        return [Sample(now, lbl, k, v) for lbl in self._labels for k, v in values.items()]

    def _values(self, read: ProcRead, facts: HostFacts) -> dict[str, float]:
        where = self._reader.where
        at = parse_uptime(_need(read, UPTIME, where))
        stat = _need(read, "/proc/stat", where)
        out: dict[str, float] = {}
        cpu = parse_cpu_times(stat, facts.clk_tck)
        if self._prev_cpu is not None:
            prev_at, prev = self._prev_cpu
            pcts = cpu_pcts(prev, cpu)
            if pcts is not None:
                out.update(pcts)
            cores = busy_core_pct(prev, cpu, at - prev_at, count_cpus(stat))
            if cores is not None:
                out["host.cpu_busy_core_pct"] = cores
        self._prev_cpu = (at, cpu)
        out["host.load_1m"] = parse_loadavg(_need(read, "/proc/loadavg", where))
        mem = parse_meminfo(_need(read, "/proc/meminfo", where))
        out["host.memory_used_bytes"] = float(mem.total_bytes - mem.available_bytes)
        out["host.memory_cached_bytes"] = float(mem.cached_bytes)
        out["host.memory_available_bytes"] = float(mem.available_bytes)
        usage = read.fs.get(self._data_dir)
        if usage is None:
            raise SourceUnavailableError(
                f"disk usage of {self._data_dir} on {where}: stat -f could not tell it"
            )
        out["host.disk_used_pct"] = usage.used_pct
        if self._device is not None:
            disk = parse_diskstats(_need(read, DISKSTATS, where), self._device)
            if disk is not None:
                if self._prev_disk is not None:
                    rates = disk_rates(self._prev_disk[1], disk, at - self._prev_disk[0])
                    if rates is not None:
                        out.update(rates)
                self._prev_disk = (at, disk)
        net = net_totals(parse_net_dev(_need(read, "/proc/net/dev", where)))
        rx = self._net.update("rx", float(net.rx_bytes), at)
        tx = self._net.update("tx", float(net.tx_bytes), at)
        if rx is not None:
            out["host.net_rx_bytes_per_s"] = rx
        if tx is not None:
            out["host.net_tx_bytes_per_s"] = tx
        return out

    def close(self) -> None:
        return None


class RemoteProcessSource:
    """Samples process ``pid`` on the host ``reader`` reads, recording rows under
    ``label``; ``prefix`` is ``process`` (a Cassandra node: cpu, rss, threads, I/O) or
    ``engine`` (the load engine: cpu and rss). ``start_ticks`` is the process's start
    (field 22 of its stat) when known; otherwise the first reading's is kept."""

    def __init__(
        self,
        label: str,
        pid: int,
        reader: ProcReader,
        *,
        prefix: str = "process",
        start_ticks: int | None = None,
    ) -> None:
        if prefix not in ("process", "engine"):
            raise ValueError(f"prefix must be 'process' or 'engine', not {prefix!r}")
        self._label = label
        self._pid = pid
        self._reader = reader
        self._prefix = prefix
        self._start_ticks = start_ticks
        self._stat = f"/proc/{pid}/stat"
        self._status = f"/proc/{pid}/status"
        self._io_path = f"/proc/{pid}/io"
        self._prev_cpu: tuple[float, float, float] | None = None  # (uptime s, user s, sys s)
        self._io = CounterTracker()

    @property
    def name(self) -> str:
        return self._prefix

    @property
    def node(self) -> str:
        return self._label

    @property
    def start_ticks(self) -> int | None:
        """The start time (clock ticks after boot) of the process this source reads."""
        return self._start_ticks

    def _gone(self, why: str) -> SourceUnavailableError:
        self._prev_cpu = None
        return SourceUnavailableError(
            f"reading process {self._pid} ({self._label}) on {self._reader.where}: {why}"
        )

    def sample(self, now: float) -> list[Sample]:
        facts = self._reader.facts()
        paths = [self._stat, self._status, UPTIME]
        if self._prefix == "process":
            paths.append(self._io_path)
        read = self._reader.read(paths, at=now)
        text = read.files.get(self._stat)
        if text is None:
            raise self._gone("no such process")
        try:
            return self._samples(read, text, facts, now)
        except ProcTextError as e:
            raise self._gone(str(e)) from e

    def _samples(self, read: ProcRead, text: str, facts: HostFacts, now: float) -> list[Sample]:
        stat = parse_proc_stat(text)
        if self._start_ticks is None:
            self._start_ticks = stat.start_ticks
        elif stat.start_ticks != self._start_ticks:
            started = create_time_s(stat.start_ticks, facts.boot_time_s, facts.clk_tck)
            expected = create_time_s(self._start_ticks, facts.boot_time_s, facts.clk_tck)
            raise self._gone(
                f"the PID now names another process (started at Unix time {started:.2f}, "
                f"the node's at {expected:.2f}): the node's process ended"
            )
        if stat.state == "Z":
            raise self._gone("the process is a zombie (it ended)")
        # RSS and threads from status: its VmRSS is psutil's (statm's) resident size; the
        # rss field of stat is summed from other counters and differs by a few pages.
        status = parse_proc_status(_need(read, self._status, self._reader.where))
        at = parse_uptime(_need(read, UPTIME, self._reader.where))
        p, label = self._prefix, self._label
        out: list[Sample] = []
        cur = (at, stat.utime_ticks / facts.clk_tck, stat.stime_ticks / facts.clk_tck)
        if self._prev_cpu is not None:
            out.extend(self._cpu_samples(self._prev_cpu, cur, now))
        self._prev_cpu = cur
        out.append(Sample(now, label, f"{p}.rss_bytes", float(status.rss_bytes or 0)))
        if p == "process":
            out.append(Sample(now, label, "process.threads", float(status.threads)))
            io_text = read.files.get(self._io_path)  # absent when not ours to read
            if io_text is not None:
                io = parse_proc_io(io_text)
                for key, metric, value in (
                    ("read", "process.read_bytes_per_s", io.read_bytes),
                    ("write", "process.write_bytes_per_s", io.write_bytes),
                ):
                    rate = self._io.update(key, float(value), at)
                    if rate is not None:
                        out.append(Sample(now, label, metric, rate))
        return out

    def _cpu_samples(
        self, prev: tuple[float, float, float], cur: tuple[float, float, float], now: float
    ) -> list[Sample]:
        dt = cur[0] - prev[0]
        user = busy_pct(prev[1], cur[1], dt)
        system = busy_pct(prev[2], cur[2], dt)
        if user is None or system is None:
            return []
        p = self._prefix
        return [
            Sample(now, self._label, f"{p}.cpu_pct", user + system),
            Sample(now, self._label, f"{p}.cpu_user_pct", user),
            Sample(now, self._label, f"{p}.cpu_system_pct", system),
        ]

    def close(self) -> None:
        return None
