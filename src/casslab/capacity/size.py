"""How many nodes of each size meet a throughput target (``casslab capacity size``), from
measured per-node-count models, the 95% confidence interval carried through. Pure: trials
in, an answer record out.

The rule, per node size (VM type) of the workload:

1. **Groups.** Trials form groups as in ``casslab capacity model``
   (:func:`casslab.capacity.throughput_fit.fit_throughput`, whose grouping is reused as
   is): workload, node size, node count and the levels of any other factor. With a p99 SLO
   a group counts only if the mean of its trials' ``latency_p99_ms`` is at most the SLO; a
   group that did not measure it is left out, and the answer says so.
2. **Points.** Per node count, the counting group with the highest mean op rate, with its
   95% CI (Student t on its iterations).
3. **Curves.** t(n) is the planner's eq. 6 (:mod:`casslab.capacity.throughput`): linear
   between (0, 0) and the measured points, past the last point with the last segment's
   slope, never below 0. It is drawn three times, through each point's CI low, its mean
   and its CI high: t_low, t_mean, t_high.
4. **Answer.** The smallest n >= rf with t_low(n) >= target ("nodes needed with 95%
   confidence", ``nodes_confident``), with t_mean (``nodes_expected``), with t_high
   (``nodes_optimistic``, optimistic). None when the curve never gets there: past the last
   point it is flat or falls. A point without a CI (one iteration) gives no band: only
   ``nodes_expected``. A count beyond the largest measured node count is an extrapolation,
   and the option says so.

What the band is and is not: each point's interval covers that point's mean with 95%
confidence, alone. A line through the intervals' ends is a pointwise band, not a
simultaneous one: it does not cover the whole curve with 95% confidence, and between and
beyond the points it assumes the curve is linear. Past the last point each line keeps its
own last slope, so far out the lines may cross (t_low above t_mean); the option then says
the extrapolation is not to be trusted, and gives no count from the side that crossed.
The highest of several groups leans high (see ``capacity model``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from statistics import fmean
from typing import Literal

from casslab.analysis.analysis_records import TrialKpis
from casslab.capacity.throughput import allowed_counts, exact
from casslab.capacity.throughput_fit import KPI, RunTrials, ThroughputPoint, fit_throughput
from casslab.errors import ConfigError
from casslab.record import Record

P99 = "latency_p99_ms"
SCHEMA_VERSION: Literal[1] = 1


class SizePoint(Record):
    """One measured point a size's curves go through."""

    throughput: ThroughputPoint
    latency_p99_ms: float | None  # mean p99 of the point's group; None: not measured


class SizeOption(Record):
    """The node counts of one node size that meet the target (None: never, or no CI)."""

    vm_type: str
    nodes_confident: int | None  # smallest n >= rf with t_low(n) >= target: 95% confidence
    nodes_expected: int | None  # ... with t_mean(n) >= target
    nodes_optimistic: int | None  # ... with t_high(n) >= target: optimistic
    extrapolated: bool  # one of the counts is beyond the largest measured node count
    largest_measured_nodes: int | None
    points: tuple[SizePoint, ...]
    reasons: tuple[str, ...]


class SizeAnswer(Record):
    """``casslab capacity size``: per node size of a workload, the nodes for a target."""

    schema_version: Literal[1] = SCHEMA_VERSION
    workload: str
    target_ops_per_s: float
    latency_p99_slo_ms: float | None
    rf: int
    options: tuple[SizeOption, ...]


def check_target(ops_per_s: float, rf: int) -> None:
    """ConfigError unless the target is a positive number of ops/s and rf is at least 1."""
    if not math.isfinite(ops_per_s) or ops_per_s <= 0:
        raise ConfigError(f"--ops {ops_per_s:g}: the target must be > 0 ops/s, e.g. --ops 50000")
    if rf < 1:
        raise ConfigError(f"--rf {rf}: the replication factor must be at least 1, e.g. --rf 3")


GroupKey = tuple[str, int, str]  # node size, node count, the other factors' levels
Members = list[tuple[int, TrialKpis]]  # (index of the run, trial)


def _groups(runs: Sequence[RunTrials], workload: str) -> tuple[set[str], dict[GroupKey, Members]]:
    """Every workload in the runs, and the groups of ``workload``. A trial's group is the
    one ``fit_throughput`` gives it alone, so the rule is the model's, not a copy."""
    workloads: set[str] = set()
    groups: dict[GroupKey, Members] = {}
    for index, run in enumerate(runs):
        for trial in run.trials:
            if trial.kpis.get(KPI) is None:
                continue
            (point,) = fit_throughput([RunTrials(run.source, [trial], run.fixed)])
            workloads.add(point.workload)
            if point.workload == workload:
                key = (point.vm_type, point.nodes, point.group)
                groups.setdefault(key, []).append((index, trial))
    return workloads, groups


def _last_slope(values: Mapping[int, float]) -> Fraction:
    ordered = sorted(values)
    n_last, n_before = ordered[-1], (ordered[-2] if len(ordered) > 1 else 0)
    t_before = exact(values[n_before]) if n_before else Fraction(0)
    return (exact(values[n_last]) - t_before) / (n_last - n_before)


def smallest_nodes(values: Mapping[int, float], ops_per_s: float, rf: int) -> int | None:
    """The smallest n >= ``rf`` with t(n) >= ``ops_per_s``, t through (0, 0) and
    ``values`` (node count: ops/s), extended with its last slope; None if no n gets there."""
    largest = max(values)
    window = max(largest, rf)
    for low, high in allowed_counts(values, ops_per_s, window):
        if high >= rf:
            return max(low, rf)
    slope = _last_slope(values)
    if slope <= 0:
        return None
    # Past the last point t(n) = T_K + slope (n - n_K), rising: solve it for the target.
    needed = largest + math.ceil((exact(ops_per_s) - exact(values[largest])) / slope)
    return max(window + 1, needed)


def _never(curve: str, values: Mapping[int, float], ops_per_s: float) -> str:
    largest = max(values)
    return (
        f"{curve} never reaches {ops_per_s:g} ops/s: {values[largest]:.0f} ops/s at "
        f"{largest} nodes, the largest measured, and a last slope of "
        f"{float(_last_slope(values)):.0f} ops/s per node after it"
    )


def _option(vm_type: str, points: list[SizePoint], ops_per_s: float, rf: int) -> SizeOption:
    tps = [p.throughput for p in points]
    mean = {t.nodes: t.ops_mean for t in tps}
    largest = max(mean)
    expected = smallest_nodes(mean, ops_per_s, rf)
    reasons = [] if expected is not None else [_never("t_mean", mean, ops_per_s)]
    low = high = None
    lone = [t for t in tps if t.ci_low is None or t.ci_high is None]
    if lone:
        reasons.append(
            "no 95% CI at "
            + ", ".join(f"{t.nodes} nodes ({t.ci_undetermined})" for t in lone)
            + ": the band is undetermined, only the expected count is given"
        )
    else:
        lows = {t.nodes: t.ci_low for t in tps if t.ci_low is not None}
        highs = {t.nodes: t.ci_high for t in tps if t.ci_high is not None}
        low, high = smallest_nodes(lows, ops_per_s, rf), smallest_nodes(highs, ops_per_s, rf)
        if low is None:
            reasons.append(_never("t_low (the CI's low end)", lows, ops_per_s))
        if high is None and expected is not None:
            reasons.append(_never("t_high (the CI's high end)", highs, ops_per_s))
    beyond = [n for n in (low, expected, high) if n is not None and n > largest]
    if beyond:
        reasons.append(
            f"extrapolated: {', '.join(map(str, beyond))} node(s) lie beyond the largest "
            f"measured count, {largest}, where t(n) keeps its last segment's slope"
        )
    # t_low asking for fewer nodes than t_mean (or reaching where t_mean never does), or
    # t_high for more: the band's lines crossed, and that side of it answers nothing
    crossed_low = low is not None and (expected is None or low < expected)
    crossed_high = not lone and expected is not None and (high is None or high > expected)
    if crossed_low or crossed_high:
        reasons.append(
            "the CI's lines cross beyond the measurements: do not trust the band"
            + ("; no 95%-confident count" if crossed_low else "")
            + ("; no optimistic count" if crossed_high else "")
        )
        low = None if crossed_low else low
        high = None if crossed_high else high
    return SizeOption(
        vm_type=vm_type,
        nodes_confident=low,
        nodes_expected=expected,
        nodes_optimistic=high,
        extrapolated=bool(beyond),
        largest_measured_nodes=largest,
        points=tuple(points),
        reasons=tuple(reasons),
    )


def size_nodes(
    runs: Sequence[RunTrials],
    workload: str,
    ops_per_s: float,
    rf: int,
    p99_slo_ms: float | None = None,
) -> SizeAnswer:
    """Per node size of ``workload`` in ``runs``, the node counts that meet ``ops_per_s``
    (see the module docstring). ConfigError for a bad target or a workload not measured."""
    check_target(ops_per_s, rf)
    workloads, groups = _groups(runs, workload)
    if workload not in workloads:
        known = ", ".join(sorted(workloads)) or "none (no finished trial with an op_rate)"
        raise ConfigError(
            f"--workload {workload!r}: not in the runs given; give one of theirs: {known}"
        )
    p99_of: dict[GroupKey, float | None] = {}
    left_out: dict[str, list[str]] = {}
    kept: dict[str, dict[int, list[TrialKpis]]] = {}
    for key in sorted(groups):
        members = groups[key]
        present = [v for _, t in members if (v := t.kpis.get(P99)) is not None]
        p99 = p99_of[key] = fmean(present) if present else None
        if p99_slo_ms is not None and (p99 is None or p99 > p99_slo_ms):
            why = f"p99 {p99:.1f} ms" if p99 is not None else f"no {P99}, the SLO unchecked"
            label = f"{key[1]} nodes" + (f" ({key[2]})" if key[2] else "")
            left_out.setdefault(key[0], []).append(f"{label}: {why}")
            continue
        for index, trial in members:
            kept.setdefault(key[0], {}).setdefault(index, []).append(trial)
    options = []
    for vm_type in sorted({key[0] for key in groups}):
        reasons = []
        if vm_type in left_out:
            reasons.append(
                f"left out over the p99 SLO of {p99_slo_ms:g} ms: " + "; ".join(left_out[vm_type])
            )
        if vm_type not in kept:
            reasons.append("no group meets the p99 SLO: no model for this size")
            options.append(
                SizeOption(
                    vm_type=vm_type,
                    nodes_confident=None,
                    nodes_expected=None,
                    nodes_optimistic=None,
                    extrapolated=False,
                    largest_measured_nodes=None,
                    points=(),
                    reasons=tuple(reasons),
                )
            )
            continue
        subset = [RunTrials(runs[i].source, ts, runs[i].fixed) for i, ts in kept[vm_type].items()]
        points = [
            SizePoint(throughput=t, latency_p99_ms=p99_of[(t.vm_type, t.nodes, t.group)])
            for t in fit_throughput(subset)
        ]
        option = _option(vm_type, points, ops_per_s, rf)
        options.append(option.model_copy(update={"reasons": (*reasons, *option.reasons)}))
    return SizeAnswer(
        workload=workload,
        target_ops_per_s=ops_per_s,
        latency_p99_slo_ms=p99_slo_ms,
        rf=rf,
        options=tuple(options),
    )
