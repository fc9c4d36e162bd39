"""Number formatting and verdict wording shared by every report.

One place decides how a mean, a percentage, a p-value and a verdict read, so the HTML,
Markdown and comparison reports say the same thing in the same words.
"""

from __future__ import annotations

import math

from casslab.analysis import CellStats, Comparison, Direction, RatioEstimate, Verdict, kpi_spec
from casslab.report.report_document import Tone, VerdictRow

VERDICT_TEXT: dict[Verdict, str] = {
    Verdict.BETTER: "better",
    Verdict.WORSE: "worse",
    Verdict.CHANGED_UP: "higher (neutral KPI: not a goal)",
    Verdict.CHANGED_DOWN: "lower (neutral KPI: not a goal)",
    Verdict.NO_SIGNIFICANT_DIFFERENCE: "not significant",
    Verdict.UNDETERMINED: "undetermined",
}

VERDICT_TONE: dict[Verdict, Tone] = {
    Verdict.BETTER: Tone.GOOD,
    Verdict.WORSE: Tone.BAD,
    Verdict.CHANGED_UP: Tone.CHANGED,
    Verdict.CHANGED_DOWN: Tone.CHANGED,
    Verdict.NO_SIGNIFICANT_DIFFERENCE: Tone.NEUTRAL,
    Verdict.UNDETERMINED: Tone.UNKNOWN,
}

DIRECTION_TEXT: dict[Direction, str] = {
    Direction.HIGHER_IS_BETTER: "higher is better",
    Direction.LOWER_IS_BETTER: "lower is better",
    Direction.NEUTRAL: "neutral",
}

DASH = "-"


def number(value: float | None) -> str:
    """A value with about four significant digits, thousands separated; a dash for None."""
    if value is None or not math.isfinite(value):
        return DASH
    size = abs(value)
    if size == 0:
        return "0"
    if size >= 1e7:
        return f"{value:.4g}"
    if size >= 1000:
        return f"{value:,.0f}"
    if size >= 100:
        return f"{value:.1f}"
    if size >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def percent(value: float | None) -> str:
    """A signed percentage change: ``+12.3%``."""
    if value is None or not math.isfinite(value):
        return DASH
    return f"{value:+.1f}%"


def p_value(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return DASH
    if value < 0.001:
        return "<0.001"
    return f"{value:.3f}"


def ratio(value: float | None, low: float | None, high: float | None) -> str:
    """``1.12 [1.05, 1.19]``; the interval is left out when undetermined."""
    if value is None:
        return DASH
    if low is None or high is None:
        return f"{value:.3f} [CI undetermined]"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def mean_ci(stats: CellStats) -> str:
    """``1,234 ± 56`` (95% CI half-width), ``1,234 (n=1, CI undetermined)`` or a dash."""
    if stats.mean is None:
        return DASH
    if stats.ci is None:
        return f"{number(stats.mean)} (n={stats.n}, CI undetermined)"
    half = (stats.ci.high - stats.ci.low) / 2.0
    return f"{number(stats.mean)} ± {number(half)}"


def ci_range(stats: CellStats) -> str:
    if stats.ci is None:
        return "undetermined"
    return f"[{number(stats.ci.low)}, {number(stats.ci.high)}]"


def cv_text(stats: CellStats) -> str:
    return DASH if stats.cv is None else f"{100 * stats.cv:.1f}%"


def verdict_row(
    kpi: str,
    cell_id: str,
    baseline_cell: str,
    *,
    verdict: Verdict,
    reason: str,
    baseline_mean: float | None = None,
    cell_mean: float | None = None,
    change_pct: float | None = None,
    ratio: RatioEstimate | None = None,
    p_value: float | None = None,
) -> VerdictRow:
    """The one builder of a headline row: a cell's comparison, a series comparison or a
    comparison that could not be made (only ``verdict`` and ``reason``)."""
    ci = ratio.ci if ratio is not None else None
    return VerdictRow(
        kpi=kpi,
        unit=kpi_spec(kpi).unit,
        cell_id=cell_id,
        baseline_cell=baseline_cell,
        baseline_mean=baseline_mean,
        cell_mean=cell_mean,
        change_pct=change_pct,
        ratio=ratio.ratio if ratio is not None else None,
        ratio_low=ci.low if ci is not None else None,
        ratio_high=ci.high if ci is not None else None,
        p_value=p_value,
        verdict=verdict,
        verdict_text=VERDICT_TEXT[verdict],
        reason=reason,
    )


def comparison_row(comparison: Comparison) -> VerdictRow:
    """The headline numbers of one comparison of cells (its p-value as corrected)."""
    return verdict_row(
        comparison.kpi,
        comparison.cell_id,
        comparison.baseline_cell,
        verdict=comparison.verdict,
        reason=comparison.verdict_reason,
        baseline_mean=comparison.baseline.mean,
        cell_mean=comparison.candidate.mean,
        change_pct=comparison.change_pct,
        ratio=comparison.ratio,
        p_value=comparison.p_value_adjusted,
    )


def verdict_sentence(row: VerdictRow) -> str:
    """``op_rate of compaction=LCS vs compaction=STCS: better (+12.3%, p<0.001)``."""
    shown = p_value(row.p_value)
    detail = f"{percent(row.change_pct)}, p{shown if shown.startswith('<') else '=' + shown}"
    if row.verdict is Verdict.UNDETERMINED:
        detail = row.reason
    sentence = f"{row.kpi} of {row.cell_id} vs {row.baseline_cell}: {row.verdict_text} ({detail})"
    return f"{sentence}; caution: {row.caution}" if row.caution else sentence


def steady_text(steady: bool | None, start_s: float | None, reason: str | None) -> str:
    """A trial's steady state in a table cell: ``from 12 s``, ``NOT STEADY: trends
    throughout`` (the head of its reason), or a dash when not recorded."""
    if steady is None:
        return DASH
    if steady:
        return f"from {start_s or 0.0:.0f} s"
    head = (reason or "").split(":", 1)[0].strip()
    return f"NOT STEADY: {head}" if head else "NOT STEADY"
