"""The lab's own CPU during a measured phase: the metrics recording kept across trials
against the old per-phase start-up (issue 4: under 2 % of one core from the first second).

Starts a real 1-node cluster, creates the workload's schema, then runs three real engine
measured phases of ``--duration`` seconds (a light fixed-rate write load):

1. ``trial_phases.measure`` as the runner calls it: the cluster recording is opened lazily before
   the engine starts (JMX helper, CQL connections, warmed with one discarded sample);
2. ``trial_phases.measure`` again: the recording is already open (the figures reported as *kept*);
3. the old way, as the runner did before: a metrics ``Recorder`` with fresh samplers
   created at the engine's first record (figures reported as *per-phase start-up*).

"The lab" is this Python process (every thread but the bench's own monitor thread, whose
CPU is measured and taken off) plus every process it started except the Cassandra node and
the load engine: the JMX helper JVM. Its CPU is read 20 times a second (the process's own
CPU clock, and /proc/PID/task/*/schedstat of the children, in nanoseconds) and given per
second of the phase, counted from the engine's start. Usage::

    .venv/bin/python bench/recording_overhead.py [--duration 30] [--rate 300] \\
        [--base-address 127.0.220.31] [--jmx-port-base 8830]
"""

from __future__ import annotations

import argparse
import bisect
import glob
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

from casslab.analysis.kpis import kpis_from_metrics
from casslab.cluster import LocalCluster, cluster_spec
from casslab.engine_contract.engine_records import EngineRecord, SummaryRecord
from casslab.engine_contract.workload_spec import Connection, Output, WorkloadSpec
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import trial_phases
from casslab.experiment.run.engine_specs import spec_for
from casslab.experiment.run.recording import LazyRecording, default_sources
from casslab.load import engine
from casslab.metrics.sampling import Recorder
from casslab.metrics.store import ParquetSink, load


def _thread_cpu_ns(pid: int) -> dict[str, int]:
    """CPU nanoseconds of each live thread of ``pid``, by /proc task path."""
    out: dict[str, int] = {}
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as f:
                out[path] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return out


class LabCpu:
    """A thread sampling the lab's cumulative CPU seconds every ``period_s``."""

    def __init__(self, exclude: set[int], period_s: float = 0.05) -> None:
        self.exclude = exclude
        self._period_s = period_s
        self._me = psutil.Process()
        # (pid, thread) -> last CPU ns seen: per thread, because a JVM's compiler threads
        # come and go, and a process total read from live threads would drop
        self._threads: dict[str, int] = {}
        self.times: list[float] = []
        self.cpu_s: list[float] = []
        self.monitor_cpu_s = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-monitor", daemon=True)

    def start(self) -> None:
        self._thread.start()
        while not self.times:  # the first reading, so that at() has a start
            time.sleep(self._period_s)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        pids: list[int] = []
        last_scan = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if now - last_scan > 0.5:  # finding children scans /proc: twice a second
                pids = [p.pid for p in self._me.children(recursive=True)]
                last_scan = now
            for pid in pids:
                if pid not in self.exclude:
                    self._threads.update(_thread_cpu_ns(pid))
            self.monitor_cpu_s = time.thread_time()
            own = time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID) - self.monitor_cpu_s
            self.times.append(now)
            self.cpu_s.append(own + sum(self._threads.values()) / 1e9)
            self._stop.wait(self._period_s)

    def at(self, t: float) -> float:
        """Cumulative lab CPU seconds at monotonic time ``t`` (linear interpolation)."""
        i = bisect.bisect_left(self.times, t)
        if i <= 0:
            return self.cpu_s[0]
        if i >= len(self.times):
            return self.cpu_s[-1]
        t0, t1 = self.times[i - 1], self.times[i]
        c0, c1 = self.cpu_s[i - 1], self.cpu_s[i]
        return c0 + (c1 - c0) * (t - t0) / (t1 - t0)


class PhaseTimes:
    """When the engine of the current phase started and sent its summary (monotonic)."""

    def __init__(self) -> None:
        self.start: float | None = None
        self.end: float | None = None
        self.pids: list[int] = []


@contextmanager
def timed_engine(times: PhaseTimes, lab: LabCpu) -> Iterator[None]:
    """Wrap ``engine.stream`` to note the engine's start and summary, and to keep the
    engine out of the lab's CPU."""
    real = engine.stream

    def stream(
        spec: WorkloadSpec,
        workdir: Path,
        *,
        on_start: Callable[[int], None] | None = None,
        **kwargs: Any,
    ) -> Generator[EngineRecord, None, None]:
        def started(pid: int) -> None:
            lab.exclude.add(pid)
            times.pids.append(pid)
            times.start = time.monotonic()
            if on_start is not None:
                on_start(pid)

        for record in real(spec, workdir, on_start=started, **kwargs):
            if isinstance(record, SummaryRecord):
                times.end = time.monotonic()
            yield record

    engine.stream = stream
    try:
        yield
    finally:
        engine.stream = real


def old_measure(
    cluster: LocalCluster, spec: WorkloadSpec, trial_dir: Path, metrics_path: Path
) -> SummaryRecord | None:
    """The measured phase as the runner ran it before the kept recording: samplers
    (JMX helper, CQL sessions) created and started at the engine's first record."""
    spec = spec.model_copy(update={"schema_cql": [], "output": Output(interval_s=1.0)})
    recorder: Recorder | None = None
    summary: SummaryRecord | None = None
    pids: list[int] = []
    try:
        for record in engine.stream(spec, trial_dir, on_start=pids.append):
            if recorder is None:
                recorder = Recorder(default_sources(cluster, pids[0]), ParquetSink(metrics_path))
                recorder.start()
            if isinstance(record, SummaryRecord):
                summary = record
    finally:
        if recorder is not None:
            recorder.stop()
    return summary


def per_second(lab: LabCpu, times: PhaseTimes) -> list[float]:
    """Lab CPU, % of one core, in each whole second from the engine's start to its summary."""
    assert times.start is not None
    assert times.end is not None
    seconds = int(times.end - times.start)
    return [100.0 * (lab.at(times.start + k + 1) - lab.at(times.start + k)) for k in range(seconds)]


def summary_line(name: str, series: list[float]) -> str:
    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else float("nan")

    return (
        f"{name:<28} {series[0]:>9.2f} {mean(series[:5]):>10.2f} {mean(series):>12.2f}"
        f" {max(series):>9.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=30, help="seconds per measured phase")
    parser.add_argument("--rate", type=int, default=300, help="fixed write rate, ops/s")
    parser.add_argument("--base-address", default="127.0.220.31")
    parser.add_argument("--jmx-port-base", type=int, default=8830)
    args = parser.parse_args()

    spec = cluster_spec(
        name="recordingbench",
        nodes=1,
        heap="512M",
        base_address=args.base_address,
        jmx_port_base=args.jmx_port_base,
    )
    experiment = Experiment.model_validate(
        {
            "name": "recordingbench",
            "workload": "write",
            "measure": f"duration={args.duration}s -rate threads=4 fixed={args.rate}/s",
        }
    )
    trial = expand(experiment).trials[0]
    with tempfile.TemporaryDirectory(prefix="casslab-recording-bench-") as tmp:
        root = Path(tmp)
        t0 = time.monotonic()
        with LocalCluster.create(spec, root=root / "clusters", remove_on_exit=True) as cluster:
            print(f"1 node up in {time.monotonic() - t0:.0f} s", flush=True)
            connection = Connection(contact_points=cluster.contact_points)
            workload = spec_for(trial.workload, connection, 1)
            trial_phases.create_schema(cluster, trial, [workload])
            lab = LabCpu(exclude={n.pid for n in cluster.nodes if n.pid is not None})
            lab.start()
            recording = LazyRecording()
            kept: list[PhaseTimes] = []
            clock = trial_phases.TrialClock()
            opened: tuple[float, float] | None = None
            try:
                for n in (1, 2):
                    times, clock = PhaseTimes(), trial_phases.TrialClock()
                    before = (time.monotonic(), lab.at(time.monotonic()))
                    with timed_engine(times, lab):
                        trial_phases.measure(
                            cluster,
                            trial,
                            workload,
                            root / f"kept{n}",
                            hdr_log=root / f"kept{n}" / "latency.hlog",
                            metrics_path=root / f"kept{n}" / "metrics.parquet",
                            clock=clock,
                            recording=recording,
                            timeout_s=args.duration + 120,
                            emit=lambda _event: None,
                        )
                    if n == 1:
                        assert times.start is not None
                        opened = (times.start - before[0], lab.at(times.start) - before[1])
                    kept.append(times)
                    print(f"kept-recording phase {n} done", flush=True)
                old = PhaseTimes()
                with timed_engine(old, lab):
                    old_measure(cluster, workload, root / "old", root / "old" / "metrics.parquet")
                print("per-phase start-up phase done", flush=True)
            finally:
                recording.close()
                lab.stop()
            kept_series, old_series = per_second(lab, kept[1]), per_second(lab, old)
            frame = load(root / "kept2" / "metrics.parquet")
            kpis = kpis_from_metrics(frame, start=clock.measure_start, end=clock.measure_end)
    header = f"{'':<28} {'first 1 s':>9} {'first 5 s':>10} {'whole phase':>12} {'worst 1 s':>9}"
    print()
    print(
        f"Lab CPU (this process + JMX helper; not the node, not the engine), % of one core,"
        f" during a {args.duration} s measured phase (1 node, write at {args.rate} ops/s):"
    )
    print(header)
    print(summary_line("kept recording (phase 2)", kept_series))
    print(summary_line("per-phase start-up (old)", old_series))
    print()
    print("per second, kept:     " + " ".join(f"{v:.1f}" for v in kept_series))
    print("per second, per-phase: " + " ".join(f"{v:.1f}" for v in old_series))
    if opened is not None:
        print(
            f"opening the recording before phase 1 (not in any measurement): "
            f"{opened[1]:.2f} CPU s in {opened[0]:.1f} s"
        )
    print(f"bench monitor's own CPU (taken off): {lab.monitor_cpu_s:.2f} s")
    parts = ("host_cpu_pct", "cassandra_cpu_pct", "engine_cpu_pct", "other_cpu_pct")
    print(
        "phase 2's CPU KPIs, % of one core: "
        + ", ".join(f"{k} {kpis[k]:.1f}" if kpis[k] is not None else f"{k} -" for k in parts)
    )
    worst = max(kept_series)
    print(f"target < 2 % from the first second: {'met' if worst < 2.0 else 'NOT met'}")


if __name__ == "__main__":
    main()
