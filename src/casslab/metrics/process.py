"""Process sampler: CPU, memory, threads and storage I/O of one PID (a node's JVM, or the
load engine)."""

from __future__ import annotations

import time

import psutil

from casslab.metrics.rates import CounterTracker, busy_pct
from casslab.metrics.source import Sample, SourceUnavailableError


class ProcessSource:
    """Samples process ``pid``, recording rows under ``label``.

    ``prefix`` is ``process`` for a Cassandra node (cpu, rss, threads, I/O) or ``engine``
    for the load engine (cpu and rss only).
    """

    def __init__(self, label: str, pid: int, prefix: str = "process") -> None:
        if prefix not in ("process", "engine"):
            raise ValueError(f"prefix must be 'process' or 'engine', not {prefix!r}")
        self._label = label
        self._pid = pid
        self._prefix = prefix
        self._proc: psutil.Process | None = None
        # (monotonic s when read, user s, system s): the rate's interval is the one between
        # the reads, not between the ticks' instants, since a tick reads its sources one
        # after another and a slow one before this (JMX) delays the read by a varying amount
        self._prev_cpu: tuple[float, float, float] | None = None
        self._io = CounterTracker()

    @property
    def name(self) -> str:
        return self._prefix

    @property
    def node(self) -> str:
        return self._label

    def sample(self, now: float) -> list[Sample]:
        try:
            if self._proc is None:
                self._proc = psutil.Process(self._pid)
            return self._read(self._proc, now)
        except psutil.Error as e:
            self._proc = None
            self._prev_cpu = None
            raise SourceUnavailableError(f"reading process {self._pid} ({self._label}): {e}") from e

    def _read(self, proc: psutil.Process, now: float) -> list[Sample]:
        p = self._prefix
        out: list[Sample] = []
        with proc.oneshot():
            if not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE:
                raise psutil.NoSuchProcess(self._pid)
            read_at, t = time.monotonic(), proc.cpu_times()
            rss = proc.memory_info().rss
            threads = proc.num_threads()
            io = proc.io_counters() if p == "process" and hasattr(proc, "io_counters") else None
        if self._prev_cpu is not None:
            out.extend(self._cpu_samples(self._prev_cpu, (read_at, t.user, t.system), now))
        self._prev_cpu = (read_at, t.user, t.system)
        out.append(Sample(now, self._label, f"{p}.rss_bytes", float(rss)))
        if p == "process":
            out.append(Sample(now, self._label, "process.threads", float(threads)))
            if io is not None:
                r = self._io.update("read", float(io.read_bytes), now)
                w = self._io.update("write", float(io.write_bytes), now)
                if r is not None:
                    out.append(Sample(now, self._label, "process.read_bytes_per_s", r))
                if w is not None:
                    out.append(Sample(now, self._label, "process.write_bytes_per_s", w))
        return out

    def _cpu_samples(
        self, prev: tuple[float, float, float], cur: tuple[float, float, float], now: float
    ) -> list[Sample]:
        """User, system and total CPU % of one core over the interval between two reads,
        stamped ``now``; none after a reset."""
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
