"""Confirmation: the best candidates re-measured against the default configuration, and
the verdict on each (pure).

Schedule: ``repetitions`` rounds, each the default then every candidate (A B A B ... for
one candidate, A B C A B C for two): drift over time (compaction debt, a warming page
cache, a neighbour's load) falls on the default and the candidates alike.

Statistics: the gain is the ratio of the candidate's mean to the default's, with Fieller's
95% interval (:func:`casslab.analysis.fieller_ratio`), reported as a percentage in the
good direction (for p99, a drop is a gain); the p-value is Welch's t-test
(:func:`casslab.analysis.welch_test`); each mean has its Student-t 95% CI. A candidate has
a *significant gain* when the interval excludes 0 on the good side and its confirmation
trials all met the objective's bounds; *no significant gain* when the interval includes 0.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from casslab.analysis.inference import SampleSummary, fieller_ratio, welch_test
from casslab.analysis.stats import t_quantile
from casslab.tune.objective import metric_of, violations
from casslab.tune.spec import Goal, Objective, ParamValue
from casslab.tune.tuning_result import Confirmation, Estimate, Measurement, Role, Verdict

METHOD = (
    "ABAB-interleaved repetitions; gain = candidate mean / default mean - 1 with Fieller's "
    "95% interval; Welch's t-test p-value; Student-t 95% CI of each mean"
)
DEFAULT = "d"  # the default configuration's slot in the schedule


def schedule(candidates: int, repetitions: int) -> list[tuple[int, str]]:
    """``(round, slot)`` in run order: slot ``d`` is the default, ``c1``.. the candidates."""
    return [
        (round_number, slot)
        for round_number in range(1, repetitions + 1)
        for slot in [DEFAULT, *(f"c{i}" for i in range(1, candidates + 1))]
    ]


def confirm_label(round_number: int, slot: str) -> str:
    return f"confirm-{slot}-{round_number}"


def estimate(values: Sequence[float], labels: Sequence[str]) -> Estimate:
    """The mean with its Student-t 95% CI (None with fewer than two values)."""
    if not values:
        return Estimate(mean=None, ci=None, n=0, labels=tuple(labels))
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Estimate(mean=mean, ci=None, n=1, labels=tuple(labels))
    half = t_quantile(0.95, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return Estimate(mean=mean, ci=(mean - half, mean + half), n=len(values), labels=tuple(labels))


def _metric(m: Measurement, metric: str) -> float | None:
    return m.op_rate if metric == "op_rate" else m.p99_ms


def _summary(values: Sequence[float]) -> SampleSummary:
    var = statistics.variance(values) if len(values) > 1 else 0.0
    return SampleSummary(mean=statistics.fmean(values), var=var, n=float(len(values)))


def verdict(
    objective: Objective,
    label: str,
    source: Role,
    params: dict[str, ParamValue],
    candidate: Sequence[Measurement],
    default: Sequence[Measurement],
) -> Confirmation:
    """The verdict on one candidate from its confirmation trials and the default's."""
    metric = metric_of(objective)
    c_ok = [m for m in candidate if _metric(m, metric) is not None and m.finished]
    d_ok = [m for m in default if _metric(m, metric) is not None and m.finished]
    c_values = [float(_metric(m, metric) or 0.0) for m in c_ok]
    d_values = [float(_metric(m, metric) or 0.0) for m in d_ok]
    c_est = estimate(c_values, [m.label for m in c_ok])
    d_est = estimate(d_values, [m.label for m in d_ok])
    common = {
        "label": label,
        "source": source,
        "params": params,
        "metric": metric,
        "candidate": c_est,
        "default": d_est,
        "method": METHOD,
    }
    broken = [f"{m.label}: {'; '.join(violations(objective, m))}" for m in candidate]
    broken = [b for b, m in zip(broken, candidate, strict=True) if violations(objective, m)]
    if len(c_values) < 2 or len(d_values) < 2:
        return Confirmation(
            **common,
            gain_pct=None,
            gain_ci_pct=None,
            p_value=None,
            verdict=Verdict.UNDETERMINED,
            reason="fewer than two finished repetitions on a side: no interval",
        )
    lower_is_better = objective.goal is Goal.MIN_P99
    ratio = fieller_ratio(_summary(d_values), _summary(c_values))
    welch = welch_test(_summary(d_values), _summary(c_values))
    sign = -1.0 if lower_is_better else 1.0
    gain = sign * (ratio.ratio - 1.0) * 100.0 if ratio.ratio is not None else None
    gain_ci: tuple[float, float] | None = None
    if ratio.ci is not None:
        ends = sorted(sign * (x - 1.0) * 100.0 for x in (ratio.ci.low, ratio.ci.high))
        gain_ci = (ends[0], ends[1])
    p_value = welch.p_value if welch is not None else None
    if broken:
        result, reason = Verdict.INFEASIBLE, "confirmation broke the bounds: " + "; ".join(broken)
    elif gain_ci is None:
        result = Verdict.UNDETERMINED
        reason = ratio.undetermined_reason or "the interval is not defined"
    elif gain_ci[0] > 0:
        result, reason = (
            Verdict.GAIN,
            f"the 95% interval of the gain excludes 0 (p = {p_value:.3g})",
        )
    elif gain_ci[1] < 0:
        result, reason = Verdict.WORSE, "the 95% interval of the gain is below 0"
    else:
        result, reason = Verdict.NO_GAIN, "the 95% interval of the gain includes 0"
    return Confirmation(
        **common, gain_pct=gain, gain_ci_pct=gain_ci, p_value=p_value, verdict=result, reason=reason
    )


def pick(confirmations: Sequence[Confirmation], objective: Objective) -> Confirmation | None:
    """The recommended candidate: the best mean among those with a significant gain."""
    gains = [c for c in confirmations if c.verdict is Verdict.GAIN and c.candidate.mean is not None]
    if not gains:
        return None
    sign = 1.0 if objective.goal is Goal.MIN_P99 else -1.0
    return min(gains, key=lambda c: sign * (c.candidate.mean or 0.0))
