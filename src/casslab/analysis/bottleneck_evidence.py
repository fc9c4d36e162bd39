"""A trial's :class:`~casslab.analysis.bottleneck.TrialEvidence` from what casslab keeps
of it (pure): its KPIs (over the steady window), the engine's summary and the facts of its
set-up (:class:`LoadFacts`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from casslab.analysis.bottleneck import TrialEvidence
from casslab.analysis.kpi_server import KEY_STAGES, stage_kpi
from casslab.engine_contract.engine_records import SummaryRecord
from casslab.engine_contract.workload_spec import OpenLoop, WorkloadSpec
from casslab.record import Record

_NODE_CPU = re.compile(r"(node\d+)\.container_cpu_pct")  # one node's cgroup CPU
CPU_LIMIT_KPI = "container_cpu_limit_cpus"  # per node: its cgroup's quota in CPUs


class LoadFacts(Record):
    """What the set-up says about the trial's capacity."""

    window_s: float
    nodes: int = 1
    host_cores: float | None = None
    engine_cores: float | None = None  # the engine's cpuset or quota; None: the host's
    target_rate_per_s: float | None = None  # open loop only
    max_in_flight: int | None = None  # open loop only
    wan_delay_ms: float | None = None  # the largest one-way delay of a WAN link


def load_facts(
    spec: WorkloadSpec,
    window_s: float,
    *,
    nodes: int = 1,
    host_cores: float | None = None,
    engine_cores: float | None = None,
    wan_delay_ms: float | None = None,
) -> LoadFacts:
    """The facts of a trial driven by ``spec`` (its rate shape gives the open loop's target
    and in-flight limit); ``engine_cores`` defaults to ``host_cores``."""
    rate = spec.rate
    open_loop = rate if isinstance(rate, OpenLoop) else None
    return LoadFacts(
        window_s=window_s,
        nodes=nodes,
        host_cores=host_cores,
        engine_cores=engine_cores if engine_cores is not None else host_cores,
        target_rate_per_s=None if open_loop is None else open_loop.rate_per_s,
        max_in_flight=None if open_loop is None else open_loop.max_in_flight,
        wan_delay_ms=wan_delay_ms,
    )


def node_cpu(kpis: Mapping[str, float | None]) -> tuple[float | None, float | None]:
    """(CPU in % of one core, quota in CPUs) of the node nearest its CPU limit: of the nodes
    whose quota is recorded (``node<N>.container_cpu_limit_cpus``), the one using the
    largest share of it; when none is, the busiest node's cgroup CPU and None."""
    used = {
        m.group(1): v for k, v in kpis.items() if (m := _NODE_CPU.fullmatch(k)) and v is not None
    }
    limited = [
        (pct / (100.0 * limit), pct, limit)
        for node, pct in used.items()
        if (limit := kpis.get(f"{node}.{CPU_LIMIT_KPI}"))
    ]
    if limited:
        _, pct, limit = max(limited)
        return pct, limit
    return max(used.values(), default=None), None


def quota_unrecorded(kpis: Mapping[str, float | None]) -> bool:
    """Whether the nodes' cgroup CPU is in the KPIs but no node's quota is: an unlimited
    cgroup, or a run recorded before casslab sampled ``cgroup.cpu_limit_cpus``. Node CPU is
    then judged by its throttled periods only."""
    prefixes = {m.group(1) for k in kpis if (m := _NODE_CPU.fullmatch(k))}
    return bool(prefixes) and not any(kpis.get(f"{p}.{CPU_LIMIT_KPI}") for p in prefixes)


def evidence_of(
    kpis: Mapping[str, float | None], summary: SummaryRecord | None, facts: LoadFacts
) -> TrialEvidence:
    """The evidence of one trial: its KPIs (missing ones are not measured), the engine's
    service time from its summary, and the set-up's facts. A node's CPU is its cgroup's,
    against its recorded quota (:func:`node_cpu`)."""
    stages = {pool: stage_kpi(pool) for pool in KEY_STAGES if pool != "CompactionExecutor"}
    pending = {p: v for p, k in stages.items() if (v := kpis.get(f"{k}_pending")) is not None}
    blocked = {p: v for p, k in stages.items() if (v := kpis.get(f"{k}_blocked")) is not None}
    service = summary.total.service.mean_ms if summary and summary.total.count else None
    node_cpu_pct, node_cpus = node_cpu(kpis)
    return TrialEvidence(
        window_s=facts.window_s,
        nodes=facts.nodes,
        host_cores=facts.host_cores,
        host_cpu_pct=kpis.get("host_cpu_pct"),
        node_throttled_pct=kpis.get("container_throttled_periods_pct"),
        node_cpus=node_cpus,
        node_cpu_pct=node_cpu_pct,
        engine_cores=facts.engine_cores,
        engine_cpu_pct=kpis.get("engine_cpu_pct"),
        op_rate=kpis.get("op_rate"),
        target_rate_per_s=facts.target_rate_per_s,
        max_in_flight=facts.max_in_flight,
        service_mean_ms=service,
        response_mean_ms=kpis.get("latency_mean_ms"),
        iowait_pct=kpis.get("iowait_pct"),
        disk_util_pct=kpis.get("disk_util_pct"),
        disk_await_ms=kpis.get("disk_await_ms"),
        gc_pause_ms=kpis.get("gc_pause_ms"),
        compactions_pending_growth=kpis.get("compactions_pending_growth"),
        stage_pending=pending,
        stage_blocked=blocked,
        wan_delay_ms=facts.wan_delay_ms,
    )
