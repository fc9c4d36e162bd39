"""Was the load engine itself the bottleneck of a run? Its CPU time over its measured
phase against the cores it may use (:class:`EngineMeter`), and an open loop's in-flight
limit, judged by :func:`casslab.analysis.bottleneck.diagnose` on the engine's evidence
alone (a run of ``casslab stress`` records no cluster metrics)."""

from __future__ import annotations

import time

from casslab.analysis.bottleneck import Bottleneck, Diagnosis, TrialEvidence, diagnose
from casslab.analysis.bottleneck_evidence import load_facts
from casslab.engine_contract.engine_records import IntervalRecord, SummaryRecord
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.host.cpu_allowance import cpus_allowed, process_cpu_s
from casslab.host.cpus import parse_cpuset
from casslab.record import Record


class EngineUse(Record):
    """The CPU the engines of a run used, over its wall time, and the cores they could."""

    cpu_s: float
    wall_s: float
    cores: float


class EngineMeter:
    """The engine's CPU over its measured phase: its process's CPU time read at its first
    and its latest measure interval. Its cores: what the engine process may use (its
    affinity and its cgroup's quota, read at its first measured interval), at most
    ``--engine-cpus``."""

    def __init__(self, engine_cpus: str | None) -> None:
        self._pinned = len(parse_cpuset(engine_cpus, "--engine-cpus")) if engine_cpus else None
        self.cores = cpus_allowed() if self._pinned is None else float(self._pinned)
        self._pid: int | None = None
        self._first: tuple[float, float] | None = None  # (CPU s, monotonic s)
        self._last: tuple[float, float] | None = None

    def started(self, pid: int) -> None:
        """The engine's process started."""
        self._pid = pid

    def interval(self, record: IntervalRecord) -> None:
        """An interval arrived: read the engine's CPU time at a measured one."""
        if self._pid is None or record.phase != "measure":
            return
        try:
            reading = (process_cpu_s(self._pid), time.monotonic())
            if self._first is None:  # the engine's own allowance, now that it runs
                self.cores = cpus_allowed(self._pid)
                if self._pinned is not None:
                    self.cores = min(self.cores, float(self._pinned))
        except (OSError, ValueError, IndexError):
            return  # the engine is ending: the readings so far stand
        if self._first is None:
            self._first = reading
        else:
            self._last = reading

    def use(self) -> EngineUse | None:
        """CPU and wall time between the first and latest measured intervals; None when
        fewer than two were read."""
        if self._first is None or self._last is None or self._last[1] <= self._first[1]:
            return None
        return EngineUse(
            cpu_s=self._last[0] - self._first[0],
            wall_s=self._last[1] - self._first[1],
            cores=self.cores,
        )


def engine_diagnosis(use: EngineUse, spec: WorkloadSpec, summary: SummaryRecord) -> Diagnosis:
    """The diagnosis of the engine's own evidence: its CPU and, in an open loop, its
    in-flight limit against the rate it reached."""
    facts = load_facts(spec, max(use.wall_s, 1e-3), engine_cores=use.cores)
    evidence = TrialEvidence(
        window_s=facts.window_s,
        engine_cores=facts.engine_cores,
        engine_cpu_pct=100.0 * use.cpu_s / facts.window_s,
        op_rate=summary.total.op_rate,
        target_rate_per_s=facts.target_rate_per_s,
        max_in_flight=facts.max_in_flight,
        service_mean_ms=summary.total.service.mean_ms if summary.total.count else None,
    )
    return diagnose(evidence)


def engine_warning(use: EngineUse | None, spec: WorkloadSpec, summary: SummaryRecord) -> str | None:
    """A warning line when the engine was the bottleneck, else None (also when its CPU was
    not measured)."""
    if use is None:
        return None
    found = engine_diagnosis(use, spec, summary)
    if found.primary is not Bottleneck.ENGINE:
        return None
    return (
        f"Warning: the load engine was the bottleneck, not Cassandra: {found.findings[0].evidence}"
        ". Give it more CPU (--engine-cpus), lower the rate, or spread it over --clients."
    )
