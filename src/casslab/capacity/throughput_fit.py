"""The throughput table of a capacity problem from measured trials (``casslab capacity
model``): per workload, VM type (``cluster.node_size``) and node count (``nodes``), the
mean op rate and its 95% confidence interval. Pure: trials in, records and YAML text out.

Trials with the same workload, node size, node count and other factor levels form one
group, across runs. When other factors vary (``threads``, ``rate``, a config knob), the
group with the highest mean gives the point: the maximum throughput, as seed 003 raised
YCSB threads until throughput stopped growing. The maximum of several noisy means leans
high; the point says over how many groups it was taken. The interval is Student's t on
the group's iterations (:func:`casslab.analysis.stats.describe`); with one iteration it is
undetermined.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from casslab.analysis.analysis_records import TrialKpis
from casslab.analysis.stats import describe
from casslab.errors import AnalysisError
from casslab.record import Record

WORKLOAD, NODE_SIZE, NODES = "workload", "cluster.node_size", "nodes"
KPI = "op_rate"


@dataclass(frozen=True)
class RunTrials:
    """One run's finished trials, and the levels it fixed outside its factors (its
    experiment's ``cluster.node_size``, ``cluster.nodes``, its name as the workload)."""

    source: str
    trials: Sequence[TrialKpis]
    fixed: Mapping[str, str] = field(default_factory=dict)


class ThroughputPoint(Record):
    """One measured point of the throughput table."""

    workload: str
    vm_type: str
    nodes: int
    ops_mean: float
    ci_low: float | None  # 95% confidence interval of the mean, Student t
    ci_high: float | None
    ci_undetermined: str | None  # why there is no interval (one iteration)
    n: int  # iterations in the chosen group
    group: str  # the other factors' levels of the chosen group ("" when none vary)
    groups: int  # groups the maximum was taken over
    sources: tuple[str, ...]  # the runs its iterations came from


_WHERE = {
    WORKLOAD: "a workload factor",
    NODE_SIZE: "a cluster.node_size factor or cluster: {node_size: ...}",
    NODES: "a nodes factor or cluster: {nodes: ...}",
}


def _level(run: RunTrials, trial: TrialKpis, name: str) -> str:
    value = trial.factors.get(name, run.fixed.get(name))
    if value is None:
        raise AnalysisError(
            f"capacity model: run {run.source}, trial {trial.trial_id}: no {name} level; "
            f"model runs of experiments with {_WHERE[name]}"
        )
    return value


def _groups(runs: Sequence[RunTrials]) -> dict[tuple[str, str, int, str], list[tuple[str, float]]]:
    grouped: dict[tuple[str, str, int, str], list[tuple[str, float]]] = {}
    for run in runs:
        for trial in run.trials:
            value = trial.kpis.get(KPI)
            if value is None:
                continue
            nodes_text = _level(run, trial, NODES)
            if not nodes_text.isdigit():
                raise AnalysisError(
                    f"capacity model: run {run.source}, trial {trial.trial_id}: nodes level "
                    f"{nodes_text!r} is not a whole number"
                )
            rest = ", ".join(
                f"{k}={v}"
                for k, v in sorted(trial.factors.items())
                if k not in (WORKLOAD, NODE_SIZE, NODES)
            )
            key = (
                _level(run, trial, WORKLOAD),
                _level(run, trial, NODE_SIZE),
                int(nodes_text),
                rest,
            )
            grouped.setdefault(key, []).append((run.source, float(value)))
    return grouped


def fit_throughput(runs: Sequence[RunTrials]) -> list[ThroughputPoint]:
    """The points of the throughput table, sorted by workload, VM type and nodes; raises
    AnalysisError when no trial measured an op rate, or a level is missing."""
    grouped = _groups(runs)
    if not grouped:
        sources = ", ".join(r.source for r in runs)
        raise AnalysisError(
            f"capacity model: no finished trial with an {KPI} in {sources}; give run "
            "directories of experiments that measured one"
        )
    best: dict[tuple[str, str, int], list[ThroughputPoint]] = {}
    for (workload, vm_type, nodes, rest), values in grouped.items():
        stats = describe([v for _, v in values], cell_id=rest or "all", kpi=KPI)
        mean = stats.mean if stats.mean is not None else 0.0
        best.setdefault((workload, vm_type, nodes), []).append(
            ThroughputPoint(
                workload=workload,
                vm_type=vm_type,
                nodes=nodes,
                ops_mean=mean,
                ci_low=stats.ci.low if stats.ci else None,
                ci_high=stats.ci.high if stats.ci else None,
                ci_undetermined=stats.ci_undetermined_reason,
                n=stats.n,
                group=rest,
                groups=0,
                sources=tuple(dict.fromkeys(source for source, _ in values)),
            )
        )
    points = []
    for key in sorted(best):
        candidates = best[key]
        top = max(candidates, key=lambda p: p.ops_mean)
        points.append(top.model_copy(update={"groups": len(candidates)}))
    return points


_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]*$")


def _key(text: str) -> str:
    return text if _PLAIN.match(text) else '"' + text.replace('"', '\\"') + '"'


def _comment(point: ThroughputPoint) -> str:
    if point.ci_low is not None and point.ci_high is not None:
        spread = f"95% CI [{point.ci_low:.0f}, {point.ci_high:.0f}] (Student t), n {point.n}"
    else:
        spread = f"no CI ({point.ci_undetermined})"
    if point.groups > 1:
        spread += f"; the highest of {point.groups} groups: {point.group}"
    return spread


def throughput_yaml(points: Sequence[ThroughputPoint]) -> str:
    """The ``throughput:`` block of a problem file, each point's interval in a comment."""
    lines = [f"throughput:  # mean {KPI}, ops/s, by workload, VM type and nodes"]
    workload = vm_type = None
    for point in points:
        if point.workload != workload:
            workload, vm_type = point.workload, None
            lines.append(f"  {_key(point.workload)}:")
        if point.vm_type != vm_type:
            vm_type = point.vm_type
            lines.append(f"    {_key(point.vm_type)}:")
        lines.append(f"      {point.nodes}: {point.ops_mean:.0f}  # {_comment(point)}")
    return "\n".join(lines) + "\n"
