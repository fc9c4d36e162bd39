"""Cells against the baseline cell: verdicts, p-values, ratios, effect sizes and warnings.

For each KPI and each non-baseline cell, :func:`compare_kpi` computes the difference of
means, the ratio of means with Fieller's confidence interval, Welch's t-test, Cohen's d /
Hedges' g (methods cited in :mod:`casslab.analysis.inference`), optionally adjusts the
p-values of that KPI's comparisons with Holm's method, and decides a :class:`Verdict`:

==========================================  =========================================
condition                                   verdict
==========================================  =========================================
a cell has no value, or fewer than 2        UNDETERMINED (reason names the cell)
both cells constant (zero variance)         UNDETERMINED (Welch's t is undefined), but a
                                            share of counts is tested on its counts
p >= alpha                                  NO_SIGNIFICANT_DIFFERENCE
p < alpha, KPI higher_is_better             BETTER if the mean went up, else WORSE
p < alpha, KPI lower_is_better              BETTER if the mean went down, else WORSE
p < alpha, KPI neutral                      CHANGED_UP / CHANGED_DOWN (never better/worse)
==========================================  =========================================

A share of counts (``lww_lost_pct``) whose trials do not vary in either cell is tested on the
counts pooled over each cell's trials (Fisher's exact test,
:mod:`casslab.analysis.pooled_share`) instead of being left undetermined; the reason says so
and gives the counts.

``p`` is the Holm-adjusted p-value when :attr:`AnalysisOptions.correction` is HOLM.
Neutral KPIs (resources, compaction work) are not goals: more bytes compacted is not "better"
(MISSION.md), so their significant changes are reported as up or down only.

Warnings (:class:`WarningCode`): HIGH_CV above ``cv_warning``; TRIAL_ERRORS when a trial of
the cell had failed operations; TOO_FEW_ITERATIONS below ``min_iterations``; MISSING_VALUES
when a trial lacks the KPI; DIFFERENCE_WITHIN_NOISE when ``|difference|`` is smaller than the
CI half-width of either cell (it is attached whatever the verdict, so a reader sees why a
small difference is not a win).
"""

from __future__ import annotations

from collections.abc import Sequence

from casslab.analysis.analysis_records import (
    Analysis,
    AnalysisOptions,
    AnalysisWarning,
    CellInfo,
    CellStats,
    Comparison,
    Correction,
    TrialKpis,
    Verdict,
    WarningCode,
    kpi_spec,
)
from casslab.analysis.inference import SampleSummary, effect_size, holm_adjust
from casslab.analysis.pooled_share import pool_cells
from casslab.analysis.stats import cell_order, describe, values_by_cell
from casslab.analysis.verdict import contrast, decide_verdict
from casslab.errors import AnalysisError

ERRORS_KPI = "errors"


def _summary(stats: CellStats) -> SampleSummary | None:
    if stats.mean is None:
        return None
    var = stats.var if stats.var is not None else 0.0
    return SampleSummary(mean=stats.mean, var=var, n=float(stats.n))


def _undetermined_reason(baseline: CellStats, candidate: CellStats) -> str | None:
    for stats in (baseline, candidate):
        if stats.n == 0:
            return f"cell {stats.cell_id!r} has no value of {stats.kpi}"
        if stats.n < 2:
            return (
                f"cell {stats.cell_id!r} has n={stats.n} value of {stats.kpi}; "
                "a comparison needs at least 2 iterations in each cell"
            )
    if baseline.sd == 0.0 and candidate.sd == 0.0:
        if baseline.mean == candidate.mean:
            return f"both cells are constant and equal ({baseline.mean:g}): no test possible"
        return (
            f"neither cell varies ({baseline.mean:g} vs {candidate.mean:g}): Welch's t-test "
            "is undefined; run more iterations or check how the KPI is measured"
        )
    return None


def cell_warnings(
    stats: CellStats, options: AnalysisOptions = AnalysisOptions()
) -> list[AnalysisWarning]:
    """Warnings about one KPI of one cell: missing values, too few iterations, high CV."""
    out: list[AnalysisWarning] = []
    where = f"{stats.kpi} in cell {stats.cell_id!r}"
    if stats.n_missing > 0:
        out.append(
            AnalysisWarning(
                code=WarningCode.MISSING_VALUES,
                message=(
                    f"{where}: {stats.n_missing} of {stats.n + stats.n_missing} trials did "
                    "not measure it; check the metrics source of those trials"
                ),
                cell_id=stats.cell_id,
                kpi=stats.kpi,
            )
        )
    if 0 < stats.n < options.min_iterations:
        out.append(
            AnalysisWarning(
                code=WarningCode.TOO_FEW_ITERATIONS,
                message=(
                    f"{where}: only {stats.n} value(s); use at least "
                    f"{options.min_iterations} iterations for a usable confidence interval"
                ),
                cell_id=stats.cell_id,
                kpi=stats.kpi,
            )
        )
    if stats.cv is not None and stats.cv > options.cv_warning:
        out.append(
            AnalysisWarning(
                code=WarningCode.HIGH_CV,
                message=(
                    f"{where}: coefficient of variation {100 * stats.cv:.1f}% exceeds "
                    f"{100 * options.cv_warning:.0f}%; the runs are noisy, lengthen the "
                    "measurement or add iterations"
                ),
                cell_id=stats.cell_id,
                kpi=stats.kpi,
            )
        )
    return out


def error_warnings(trials: Sequence[TrialKpis]) -> list[AnalysisWarning]:
    """One TRIAL_ERRORS warning per cell in which some trial had failed operations."""
    out: list[AnalysisWarning] = []
    for cell in cell_order(trials):
        errors = [(t.trial_id, t.kpis.get(ERRORS_KPI)) for t in trials if t.cell_id == cell]
        failing = [(tid, e) for tid, e in errors if e is not None and e > 0]
        if failing:
            worst = max(e for _, e in failing)
            out.append(
                AnalysisWarning(
                    code=WarningCode.TRIAL_ERRORS,
                    message=(
                        f"cell {cell!r}: {len(failing)} of {len(errors)} trials had failed "
                        f"operations (up to {worst:g} in one trial); rates and latencies count "
                        "only successful operations: check the node logs and the engine's "
                        "error records"
                    ),
                    cell_id=cell,
                    kpi=None,
                )
            )
    return out


def _noise_warning(
    kpi: str, unit: str, difference: float | None, baseline: CellStats, candidate: CellStats
) -> AnalysisWarning | None:
    if difference is None:
        return None
    widest: tuple[float, CellStats] | None = None
    for stats in (baseline, candidate):
        if stats.ci is None:
            continue
        half = (stats.ci.high - stats.ci.low) / 2.0
        if widest is None or half > widest[0]:
            widest = (half, stats)
    if widest is None or abs(difference) >= widest[0]:
        return None
    half, stats = widest
    level = f"{100 * stats.ci.level:g}%" if stats.ci is not None else ""
    return AnalysisWarning(
        code=WarningCode.DIFFERENCE_WITHIN_NOISE,
        message=(
            f"{kpi}: cell {candidate.cell_id!r} differs from baseline {baseline.cell_id!r} "
            f"by {difference:+.4g} {unit}, less than the {level} CI half-width "
            f"{half:.4g} {unit} of cell {stats.cell_id!r}: within the noise"
        ),
        cell_id=candidate.cell_id,
        kpi=kpi,
    )


def compare_stats(
    baseline: CellStats,
    candidate: CellStats,
    options: AnalysisOptions = AnalysisOptions(),
    *,
    extra_warnings: Sequence[AnalysisWarning] = (),
) -> Comparison:
    """Compare the statistics of one KPI in two cells (no multiple-comparison correction)."""
    if baseline.kpi != candidate.kpi:
        raise AnalysisError(
            f"compare cells {baseline.cell_id!r} and {candidate.cell_id!r}: KPIs differ "
            f"({baseline.kpi!r} vs {candidate.kpi!r}); compare the same KPI"
        )
    spec = kpi_spec(baseline.kpi)
    base = _summary(baseline)
    cand = _summary(candidate)
    result = contrast(
        spec,
        base,
        cand,
        options,
        undetermined_reason=_undetermined_reason(baseline, candidate),
        no_value_reason="a cell has no value of this KPI",
    )
    effect = effect_size(base, cand) if base is not None and cand is not None else None
    warnings = [*cell_warnings(baseline, options), *cell_warnings(candidate, options)]
    warnings.extend(w for w in extra_warnings if w.cell_id in (baseline.cell_id, candidate.cell_id))
    noise = _noise_warning(spec.name, spec.unit, result.difference, baseline, candidate)
    if noise is not None:
        warnings.append(noise)
    return Comparison(
        kpi=spec.name,
        unit=spec.unit,
        direction=spec.direction,
        baseline_cell=baseline.cell_id,
        cell_id=candidate.cell_id,
        baseline=baseline,
        candidate=candidate,
        **result.fields(),
        p_value_adjusted=result.p_value,
        correction=Correction.NONE,
        alpha=options.alpha,
        effect_size=effect,
        warnings=warnings,
    )


def apply_correction(
    comparisons: Sequence[Comparison], options: AnalysisOptions
) -> list[Comparison]:
    """Adjust the p-values of the comparisons of one KPI and re-decide their verdicts."""
    if options.correction is Correction.NONE:
        return list(comparisons)
    kpis = {c.kpi for c in comparisons}
    if len(kpis) > 1:
        raise AnalysisError(
            f"apply {options.correction.value} correction: comparisons of several KPIs "
            f"{sorted(kpis)}; correct the comparisons of one KPI at a time"
        )
    adjusted = holm_adjust([c.p_value for c in comparisons])
    out: list[Comparison] = []
    for comparison, p_adj in zip(comparisons, adjusted, strict=True):
        verdict: Verdict
        reason: str
        if comparison.verdict is Verdict.UNDETERMINED:
            verdict, reason = comparison.verdict, comparison.verdict_reason
        else:
            verdict, reason = decide_verdict(
                comparison.direction,
                comparison.difference,
                p_adj,
                comparison.alpha,
                unit=comparison.unit,
            )
            reason = f"{reason}, Holm-adjusted over {len(comparisons)} comparisons"
        out.append(
            comparison.model_copy(
                update={
                    "p_value_adjusted": p_adj,
                    "correction": options.correction,
                    "verdict": verdict,
                    "verdict_reason": reason,
                }
            )
        )
    return out


def compare_kpi(
    trials: Sequence[TrialKpis],
    kpi: str,
    baseline_cell: str,
    options: AnalysisOptions = AnalysisOptions(),
) -> list[Comparison]:
    """Every other cell of ``trials`` against ``baseline_cell`` on one KPI."""
    cells = cell_order(trials)
    if baseline_cell not in cells:
        raise AnalysisError(
            f"compare {kpi!r}: baseline cell {baseline_cell!r} has no trials; choose one of {cells}"
        )
    kpi_spec(kpi)
    by_cell = values_by_cell(trials, kpi)
    stats = {
        cell: describe(by_cell[cell], cell_id=cell, kpi=kpi, confidence=options.confidence)
        for cell in cells
    }
    errors = error_warnings(trials)
    comparisons = [
        on_counts(
            compare_stats(stats[baseline_cell], stats[cell], options, extra_warnings=errors),
            trials,
            options,
        )
        for cell in cells
        if cell != baseline_cell
    ]
    return apply_correction(comparisons, options)


def on_counts(
    comparison: Comparison, trials: Sequence[TrialKpis], options: AnalysisOptions
) -> Comparison:
    """An undetermined comparison of a share of counts whose cells do not vary, tested on the
    counts pooled over each cell's trials (module docstring); any other, as it is."""
    if comparison.verdict is not Verdict.UNDETERMINED:
        return comparison
    pooled = pool_cells(trials, comparison.candidate, comparison.baseline, options.confidence)
    if pooled is None:
        return comparison
    verdict, reason = decide_verdict(
        comparison.direction,
        pooled.difference_points,
        pooled.p_value,
        options.alpha,
        unit="points",
    )
    return comparison.model_copy(
        update={
            "p_value": pooled.p_value,
            "p_value_adjusted": pooled.p_value,
            "verdict": verdict,
            "verdict_reason": f"{reason}; Fisher's exact test on {pooled.counts()}",
        }
    )


def _cells(trials: Sequence[TrialKpis]) -> list[CellInfo]:
    seen_ids: set[str] = set()
    infos: dict[str, CellInfo] = {}
    for trial in trials:
        if trial.trial_id in seen_ids:
            raise AnalysisError(
                f"analyse: trial id {trial.trial_id!r} appears twice; each trial once"
            )
        seen_ids.add(trial.trial_id)
        info = infos.get(trial.cell_id)
        if info is None:
            infos[trial.cell_id] = CellInfo(
                cell_id=trial.cell_id, factors=dict(trial.factors), trial_ids=[trial.trial_id]
            )
            continue
        if info.factors != trial.factors:
            raise AnalysisError(
                f"analyse: trial {trial.trial_id!r} of cell {trial.cell_id!r} has factors "
                f"{trial.factors}, other trials of the cell have {info.factors}; a cell "
                "is one combination of factor levels"
            )
        infos[trial.cell_id] = info.model_copy(
            update={"trial_ids": [*info.trial_ids, trial.trial_id]}
        )
    return list(infos.values())


def analyse(
    trials: Sequence[TrialKpis],
    kpis: Sequence[str],
    baseline_cell: str | None = None,
    options: AnalysisOptions = AnalysisOptions(),
) -> Analysis:
    """Statistics of every KPI in every cell and, with a baseline, every comparison."""
    if not trials:
        raise AnalysisError("analyse: no trials; run the experiment first")
    for kpi in kpis:
        kpi_spec(kpi)
    cells = _cells(trials)
    all_stats: list[CellStats] = []
    warnings: list[AnalysisWarning] = list(error_warnings(trials))
    comparisons: list[Comparison] = []
    for kpi in kpis:
        by_cell = values_by_cell(trials, kpi)
        for info in cells:
            stats = describe(
                by_cell[info.cell_id],
                cell_id=info.cell_id,
                kpi=kpi,
                confidence=options.confidence,
            )
            all_stats.append(stats)
            warnings.extend(cell_warnings(stats, options))
        if baseline_cell is not None:
            kpi_comparisons = compare_kpi(trials, kpi, baseline_cell, options)
            comparisons.extend(kpi_comparisons)
            warnings.extend(
                w
                for c in kpi_comparisons
                for w in c.warnings
                if w.code is WarningCode.DIFFERENCE_WITHIN_NOISE
            )
    return Analysis(
        baseline_cell=baseline_cell,
        kpis=list(kpis),
        options=options,
        cells=cells,
        stats=all_stats,
        comparisons=comparisons,
        warnings=warnings,
    )
