"""What the objective makes of a measurement: its value(s), whether it is feasible, and
how candidates rank (pure).

A failed trial (its cluster did not start with the candidate's settings, the engine
failed) is told to the search as the worst value with every constraint violated, so the
sampler learns to avoid the region rather than ask for it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from casslab.tune.spec import Goal, Objective
from casslab.tune.tuning_result import Measurement, Role, ScoredTrial

WORST_P99_MS = 1e6  # the p99 a failed trial is told (its op rate: 0)


def metric_of(objective: Objective) -> str:
    """The KPI the objective's figures and confirmation compare."""
    return "p99_ms" if objective.goal is Goal.MIN_P99 else "op_rate"


def direction_of(objective: Objective) -> Literal["maximize", "minimize"]:
    return "minimize" if objective.goal is Goal.MIN_P99 else "maximize"


def directions(objective: Objective) -> list[Literal["maximize", "minimize"]]:
    """Optuna's study directions."""
    if objective.goal is Goal.PARETO:
        return ["maximize", "minimize"]
    return [direction_of(objective)]


def violations(objective: Objective, m: Measurement) -> list[str]:
    """Why a measurement is not feasible (empty: it is)."""
    if not m.finished:
        return [f"failed: {m.reason or 'unknown reason'}"]
    out: list[str] = []
    if m.op_rate is None or m.p99_ms is None:
        out.append("no op_rate or p99 measured")
    if m.errors:
        out.append(f"{m.errors:g} errors")
    bound = objective.p99_ms_max
    if bound is not None and m.p99_ms is not None and m.p99_ms > bound:
        out.append(f"p99 {m.p99_ms:.1f} ms > {objective.p99_ms_max:g} ms")
    if objective.goal is Goal.MIN_P99 and objective.rate is not None and m.op_rate is not None:
        kept = 100.0 * m.op_rate / objective.rate
        if kept < objective.rate_kept_pct:
            out.append(
                f"op_rate {m.op_rate:,.0f}/s is {kept:.0f}% of {objective.rate:g}/s "
                f"(< {objective.rate_kept_pct:g}%)"
            )
    return out


FAILED_VIOLATION = 1e6  # each constraint of a failed trial: worse than any measured one


def constraint_values(objective: Objective, m: Measurement) -> dict[str, float]:
    """Optuna's constraint values (each <= 0 when met): p99 over its bound (ms), errors,
    op rate short of the open-loop target (ops/s); a failed trial violates each by
    :data:`FAILED_VIOLATION`."""
    if not m.finished or m.op_rate is None or m.p99_ms is None:
        return dict.fromkeys(("p99_over_ms", "errors", "rate_short"), FAILED_VIOLATION)
    p99 = m.p99_ms - objective.p99_ms_max if objective.p99_ms_max is not None else 0.0
    errors = float(m.errors or 0.0)
    short = 0.0
    if objective.goal is Goal.MIN_P99 and objective.rate is not None:
        short = objective.rate * objective.rate_kept_pct / 100.0 - m.op_rate
    return {"p99_over_ms": p99, "errors": errors, "rate_short": short}


def values(objective: Objective, m: Measurement) -> tuple[float, ...]:
    """The value(s) told to the search: op_rate, p99, or both (pareto)."""
    rate = m.op_rate if m.finished and m.op_rate is not None else 0.0
    p99 = m.p99_ms if m.finished and m.p99_ms is not None else WORST_P99_MS
    if objective.goal is Goal.PARETO:
        return (rate, p99)
    return (p99,) if objective.goal is Goal.MIN_P99 else (rate,)


def score(
    objective: Objective, m: Measurement, role: Role, number: int | None = None
) -> ScoredTrial:
    why = violations(objective, m)
    return ScoredTrial(
        number=number,
        role=role,
        measurement=m,
        values=values(objective, m),
        feasible=not why,
        violations=tuple(why),
    )


def primary(objective: Objective, trial: ScoredTrial) -> float:
    """The figure candidates rank by (op_rate for throughput and pareto, p99 else)."""
    return trial.values[-1] if objective.goal is Goal.MIN_P99 else trial.values[0]


def ranked(objective: Objective, trials: Sequence[ScoredTrial]) -> list[ScoredTrial]:
    """Feasible trials, best first (pareto: the front, by op_rate)."""
    feasible = [t for t in trials if t.feasible]
    if objective.goal is Goal.PARETO:
        feasible = pareto_front(feasible)
    sign = 1.0 if objective.goal is Goal.MIN_P99 else -1.0
    return sorted(feasible, key=lambda t: sign * primary(objective, t))


def pareto_front(trials: Sequence[ScoredTrial]) -> list[ScoredTrial]:
    """The trials no other dominates on (op_rate up, p99 down)."""

    def dominates(a: ScoredTrial, b: ScoredTrial) -> bool:
        ra, pa = a.values
        rb, pb = b.values
        return ra >= rb and pa <= pb and (ra > rb or pa < pb)

    return [t for t in trials if not any(dominates(o, t) for o in trials if o is not t)]
