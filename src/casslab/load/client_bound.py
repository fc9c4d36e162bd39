"""Was the load engine itself the bottleneck of a run? Its CPU time over its wall time
against the cores it may use, and an open loop's in-flight limit, judged by
:func:`casslab.analysis.bottleneck.diagnose` on the engine's evidence alone (a run of
``casslab stress`` records no cluster metrics)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from casslab.analysis.bottleneck import Bottleneck, Diagnosis, TrialEvidence, diagnose
from casslab.analysis.bottleneck_evidence import load_facts
from casslab.engine_contract.engine_records import SummaryRecord
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.host.cpu_allowance import children_cpu_s, cpus_allowed
from casslab.host.cpus import parse_cpuset
from casslab.record import Record


class EngineUse(Record):
    """The CPU the engines of a run used, over its wall time, and the cores they could."""

    cpu_s: float
    wall_s: float
    cores: float


@contextmanager
def measured_engine(engine_cpus: str | None) -> Iterator[Callable[[], EngineUse]]:
    """Measures the engines started inside: the function it yields tells their CPU time
    (children that ended) and the wall time so far. Their cores: ``--engine-cpus``, else
    what this process may use (its affinity and its cgroup's quota)."""
    allowed = cpus_allowed()
    cores = (
        min(allowed, len(parse_cpuset(engine_cpus, "--engine-cpus"))) if engine_cpus else allowed
    )
    cpu_start, wall_start = children_cpu_s(), time.monotonic()
    yield lambda: EngineUse(
        cpu_s=children_cpu_s() - cpu_start, wall_s=time.monotonic() - wall_start, cores=cores
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


def engine_warning(use: EngineUse, spec: WorkloadSpec, summary: SummaryRecord) -> str | None:
    """A warning line when the engine was the bottleneck, else None."""
    found = engine_diagnosis(use, spec, summary)
    if found.primary is not Bottleneck.ENGINE:
        return None
    return (
        f"Warning: the load engine was the bottleneck, not Cassandra: {found.findings[0].evidence}"
        ". Give it more CPU (--engine-cpus), lower the rate, or spread it over --clients."
    )
