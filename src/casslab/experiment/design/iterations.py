"""Whether a run has all the iterations it needs (pure): fixed, or adaptive until precise.

A fixed ``iterations: N`` is done when its N rounds are; an adaptive
``iterations: {min, max, until}`` asks :mod:`casslab.analysis.stopping` whether every
cell's confidence interval on the named KPIs is narrow enough, over the trials finished
OK, and adds rounds until it is or ``max`` rounds have run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casslab.experiment.design.plan_records import Plan
from casslab.store.run_records import TrialResult, TrialStatus


@dataclass(frozen=True)
class IterationDecision:
    """Whether the run stops adding rounds, and the sentence the manifest and report keep."""

    done: bool
    rule: str  # "fixed", "precision" or "max"
    sentence: str


def iteration_decision(plan: Plan, results: Sequence[TrialResult]) -> IterationDecision:
    """The decision after the plan's rounds so far, from the results of its trials."""
    from casslab.analysis.analysis_records import TrialKpis
    from casslab.analysis.stopping import decide

    adaptive = plan.adaptive
    kpis = adaptive.until.kpis if adaptive is not None else ["op_rate"]
    trials = [
        TrialKpis(
            trial_id=r.trial_id,
            cell_id=r.cell_id,
            iteration=r.iteration,
            factors=r.factors,
            kpis={k: v for k, v in r.kpis.items() if k in kpis},
        )
        for r in results
        if r.status is TrialStatus.OK
    ]
    decision = decide(
        trials,
        cells=[cell.id for cell in plan.cells],
        kpis=kpis,
        target_pct=adaptive.until.ci_half_width_pct if adaptive is not None else None,
        confidence=adaptive.until.confidence if adaptive is not None else 0.95,
        rounds=plan.iterations,
        min_iterations=adaptive.min if adaptive is not None else plan.iterations,
        max_iterations=adaptive.max if adaptive is not None else None,
    )
    rule = decision.rule.value
    sentence = decision.sentence
    if not sentence.startswith(rule):
        sentence = f"{rule}: {sentence}"  # the manifest and report name the rule first
    return IterationDecision(done=decision.done, rule=rule, sentence=sentence)
