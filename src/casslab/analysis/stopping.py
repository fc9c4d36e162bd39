"""When a run has iterated enough: a precision stopping rule on the cells' confidence intervals.

After each round of iterations, :func:`decide` looks at every cell's Student-t confidence
interval of the mean (the same interval as :func:`casslab.analysis.stats.describe`:
``x̄ ± t_{(1+c)/2, n-1} · s/√n``) on every named KPI and compares its half-width, in % of
the mean, with a target:

* **precision**: every cell's half-width on every KPI is at most the target (after at
  least ``min_iterations`` rounds): done. This is the classic sequential procedure for a
  confidence interval of fixed relative precision (Law, *Simulation Modeling and
  Analysis*, 5th ed., §9.4.1: add replications until ``t·s/√n / |x̄| <= target``); stopping on
  the interval itself biases its coverage a little, so the target is a precision goal,
  not a guarantee.
* **max**: ``max_iterations`` rounds ran and some interval is still wider: done, and the
  sentence names the cells and KPIs still short of the target.
* **fixed**: no target (a fixed number of iterations): done once ``min_iterations`` ran.

A cell with fewer than 2 values of a KPI (failed trials are not given) has no interval,
and a cell whose mean is 0 has no relative width: neither is done. Pure: records in, a
:class:`StoppingDecision` out; the runner adds rounds, the report shows the sentence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum
from typing import Literal

from pydantic import Field

from casslab.analysis.analysis_records import SCHEMA_VERSION, TrialKpis
from casslab.analysis.stats import STUDENT_T_METHOD, cell_order, describe
from casslab.errors import AnalysisError
from casslab.record import Record

SHOWN_SHORTFALLS = 3  # a sentence names at most this many cell/KPI pairs short of the target


class StoppingRule(StrEnum):
    """Which rule decided (or, while not done, is being waited for)."""

    PRECISION = "precision"  # every CI narrow enough (or waiting for it)
    MAX = "max"  # the largest number of iterations ran
    FIXED = "fixed"  # a fixed number of iterations, no precision target


class KpiPrecision(Record):
    """How precise one cell's mean of one KPI is after the rounds so far."""

    cell_id: str
    kpi: str
    n: int = Field(ge=0)  # values (trials finished OK that measured the KPI)
    mean: float | None
    half_width: float | None  # CI half-width, KPI units; None when n < 2
    half_width_pct: float | None  # 100 · half-width / |mean|; None when n < 2 or mean 0
    done: bool
    reason: str  # "±2.1% <= 3%", "±4.2% > 3%", "n=1: no CI", "mean 0: no relative width"


class StoppingDecision(Record):
    """Whether to stop adding rounds, the rule that says so, and the numbers behind it."""

    schema_version: Literal[1] = SCHEMA_VERSION
    done: bool
    rule: StoppingRule
    rounds: int = Field(ge=0)  # rounds (iterations per cell) run so far
    min_iterations: int
    max_iterations: int | None
    target_pct: float | None  # CI half-width target, % of the mean; None: fixed
    confidence: float
    kpis: list[str]
    precision: list[KpiPrecision]  # per cell (in cell order), then per KPI
    sentence: str  # one line for the terminal, the manifest and the report
    method: str = STUDENT_T_METHOD


def _pct(value: float) -> str:
    return f"{value:.1f}%" if value >= 0.95 else f"{value:.2g}%"


def _precision(
    trials: Sequence[TrialKpis], cell: str, kpi: str, confidence: float, target_pct: float | None
) -> KpiPrecision:
    values = [t.kpis.get(kpi) for t in trials if t.cell_id == cell]
    stats = describe(values, cell_id=cell, kpi=kpi, confidence=confidence)
    half = None if stats.ci is None else (stats.ci.high - stats.ci.low) / 2.0
    pct: float | None = None
    if stats.n < 2 or half is None or stats.mean is None:
        reason = f"n={stats.n}: no CI"
    elif stats.mean == 0.0:
        reason = "mean 0: no relative width"
    else:
        pct = 100.0 * half / abs(stats.mean)
        if target_pct is None:
            reason = f"±{_pct(pct)}"
        else:
            reason = f"±{_pct(pct)} {'<=' if pct <= target_pct else '>'} {_pct(target_pct)}"
    done = pct is not None and (target_pct is None or pct <= target_pct)
    return KpiPrecision(
        cell_id=cell,
        kpi=kpi,
        n=stats.n,
        mean=stats.mean,
        half_width=half,
        half_width_pct=pct,
        done=done,
        reason=reason,
    )


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _shortfalls(rows: Sequence[KpiPrecision], *, still: bool = False) -> str:
    short = sorted(
        (r for r in rows if not r.done),
        key=lambda r: -math.inf if r.half_width_pct is None else -r.half_width_pct,
    )
    word = " still" if still else ""
    shown = [f"cell {r.cell_id} {r.kpi}{word} {r.reason}" for r in short[:SHOWN_SHORTFALLS]]
    more = len(short) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def _iterations(n: int) -> str:
    return f"{n} iteration{'s' if n != 1 else ''}"


def decide(
    trials: Sequence[TrialKpis],
    *,
    kpis: Sequence[str],
    target_pct: float | None,
    cells: Sequence[str] | None = None,
    confidence: float = 0.95,
    rounds: int | None = None,
    min_iterations: int = 2,
    max_iterations: int | None = None,
) -> StoppingDecision:
    """Whether every cell's CI on every KPI in ``kpis`` is narrower than ``target_pct`` %
    of its mean (see the module docstring).

    ``trials`` are the trials that finished OK; ``cells`` every cell of the plan (default:
    the cells of ``trials``; a cell without a trial is not done); ``rounds`` the rounds run
    so far (default: the most trials of any cell). ``target_pct`` ``None`` is a fixed
    number of iterations (``min_iterations``).
    """
    if not kpis:
        raise AnalysisError("stopping rule: no KPI named; give the KPIs whose CI must narrow")
    if target_pct is not None and not target_pct > 0:
        raise AnalysisError(
            f"stopping rule: target CI half-width {target_pct}% must be > 0 (e.g. 3 for ±3%)"
        )
    if max_iterations is not None and max_iterations < min_iterations:
        raise AnalysisError(
            f"stopping rule: max_iterations {max_iterations} < min_iterations "
            f"{min_iterations}; give max >= min"
        )
    order = list(cells) if cells is not None else cell_order(trials)
    if rounds is None:
        rounds = max((sum(t.cell_id == c for t in trials) for c in order), default=0)
    rows = [_precision(trials, cell, kpi, confidence, target_pct) for cell in order for kpi in kpis]
    level = f"{100 * confidence:g}%"
    named = _and(list(kpis))
    after = f"after {_iterations(rounds)}"

    def decision(done: bool, rule: StoppingRule, sentence: str) -> StoppingDecision:
        return StoppingDecision(
            done=done,
            rule=rule,
            rounds=rounds,
            min_iterations=min_iterations,
            max_iterations=max_iterations,
            target_pct=target_pct,
            confidence=confidence,
            kpis=list(kpis),
            precision=rows,
            sentence=sentence,
        )

    if target_pct is None:
        done = rounds >= min_iterations
        state = "ran" if done else f"of {min_iterations} ran"
        return decision(done, StoppingRule.FIXED, f"fixed: {_iterations(rounds)} per cell {state}")
    all_done = bool(order) and all(r.done for r in rows)
    if rounds < min_iterations:
        return decision(
            False,
            StoppingRule.PRECISION,
            f"{_iterations(rounds)} of at least {min_iterations} ran; the {level} CIs on "
            f"{named} are judged from then on",
        )
    if all_done:
        return decision(
            True,
            StoppingRule.PRECISION,
            f"every cell's {level} CI half-width on {named} is <= {_pct(target_pct)} {after}",
        )
    short = _shortfalls(rows, still=True) if order else "no cell has a finished trial"
    if max_iterations is not None and rounds >= max_iterations:
        return decision(
            True, StoppingRule.MAX, f"max {_iterations(max_iterations)} reached; {short}"
        )
    if not order:
        return decision(False, StoppingRule.PRECISION, f"no cell to judge {after}")
    return decision(
        False,
        StoppingRule.PRECISION,
        f"not yet precise {after} (target ±{_pct(target_pct)}): {_shortfalls(rows)}",
    )
