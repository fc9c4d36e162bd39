"""One path from two samples to a verdict: difference, Welch's test, Fieller's ratio.

Cells of one run (:func:`casslab.analysis.compare.compare_stats`, a sample of trial means)
and two runs' interval series (:func:`casslab.analysis.autocorr.compare_series`, a
sample of seconds with an effective size) differ only in how they summarise a sample
and when a test is impossible; both then call :func:`contrast`. The verdict rule
(:func:`decide_verdict`) is in the table of :mod:`casslab.analysis.compare`.
"""

from __future__ import annotations

from typing import Any

from casslab.analysis.analysis_records import (
    AnalysisOptions,
    Direction,
    KpiSpec,
    RatioEstimate,
    Verdict,
    WelchTest,
)
from casslab.analysis.inference import SampleSummary, fieller_ratio, welch_test
from casslab.record import Record


class Contrast(Record):
    """A candidate sample against a baseline sample of one KPI."""

    difference: float | None  # candidate mean - baseline mean
    change_pct: float | None  # of the baseline mean; None when it is 0
    welch: WelchTest | None
    ratio: RatioEstimate
    p_value: float | None
    verdict: Verdict
    verdict_reason: str

    def fields(self) -> dict[str, Any]:
        """The fields as they are (not dumped), for a record that carries them all."""
        return {name: getattr(self, name) for name in type(self).model_fields}


def decide_verdict(
    direction: Direction,
    difference: float | None,
    p_value: float | None,
    alpha: float,
    *,
    unit: str = "",
    undetermined_reason: str | None = None,
) -> tuple[Verdict, str]:
    """The verdict and its reason for a difference (candidate - baseline) and its p-value."""
    if undetermined_reason is not None:
        return Verdict.UNDETERMINED, undetermined_reason
    if difference is None or p_value is None:
        return Verdict.UNDETERMINED, "no p-value: the test could not be computed"
    shown = f"{difference:+.4g} {unit}".rstrip()
    if p_value >= alpha:
        return (
            Verdict.NO_SIGNIFICANT_DIFFERENCE,
            f"difference {shown} is not significant (p={p_value:.3g} >= alpha={alpha:g})",
        )
    went_up = difference > 0.0
    if direction is Direction.NEUTRAL:
        verdict = Verdict.CHANGED_UP if went_up else Verdict.CHANGED_DOWN
    elif direction is Direction.HIGHER_IS_BETTER:
        verdict = Verdict.BETTER if went_up else Verdict.WORSE
    else:
        verdict = Verdict.WORSE if went_up else Verdict.BETTER
    return verdict, f"difference {shown} is significant (p={p_value:.3g} < alpha={alpha:g})"


def contrast(
    spec: KpiSpec,
    baseline: SampleSummary | None,
    candidate: SampleSummary | None,
    options: AnalysisOptions,
    *,
    undetermined_reason: str | None,
    no_value_reason: str,
) -> Contrast:
    """Compare two summarised samples of the KPI ``spec``; a missing summary (no value)
    gives no test and a ratio undetermined for ``no_value_reason``; an
    ``undetermined_reason`` (too few values, no variation) makes the verdict UNDETERMINED."""
    difference: float | None = None
    change_pct: float | None = None
    welch: WelchTest | None = None
    ratio = RatioEstimate(ratio=None, ci=None, undetermined_reason=no_value_reason)
    if baseline is not None and candidate is not None:
        difference = candidate.mean - baseline.mean
        if baseline.mean != 0.0:
            change_pct = 100.0 * difference / abs(baseline.mean)
        welch = welch_test(baseline, candidate, confidence=options.confidence)
        ratio = fieller_ratio(baseline, candidate, confidence=options.confidence)
    p_value = welch.p_value if welch is not None else None
    verdict, reason = decide_verdict(
        spec.direction,
        difference,
        p_value,
        options.alpha,
        unit=spec.unit,
        undetermined_reason=undetermined_reason,
    )
    return Contrast(
        difference=difference,
        change_pct=change_pct,
        welch=welch,
        ratio=ratio,
        p_value=p_value,
        verdict=verdict,
        verdict_reason=reason,
    )
