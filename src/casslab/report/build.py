"""RunData -> Report: every number, word and figure of a run's report, decided here (pure).

The statistics come from :func:`casslab.analysis.analyse` over the trials that finished:
per-cell mean, SD, variance and Student-t 95% CI of each KPI; each cell against the
baseline cell with Welch's t-test, Fieller's ratio interval and a verdict. Failed trials
are listed and left out of the statistics. Each trial's KPIs cover its steady part
(MSER-5); a trial flagged not steady, and a failed one, is named next to every verdict
that rests on its cell. Figures are specifications (:mod:`.figures`); the renderers draw
them.
"""

from __future__ import annotations

from collections.abc import Sequence

from casslab.analysis import (
    Analysis,
    AnalysisOptions,
    Correction,
    TrialKpis,
    analyse,
    kpi_spec,
)
from casslab.analysis.claim_records import Claim
from casslab.analysis.run_frames import (
    CellLayout,
    analysed_trials,
    cell_layout,
    trial_kpis_of,
    trial_steadiness,
)
from casslab.report import text
from casslab.report.bottlenecks import bottleneck_section
from casslab.report.cautions import cell_cautions, steady_fact, with_cautions
from casslab.report.claims import claims_section
from casslab.report.discovered import discovered_section
from casslab.report.figures import (
    SERIES_KPIS,
    bar_figure,
    box_figure,
    cell_colors,
    kpi_label,
    level_bar_figure,
    metric_figures,
    percentile_figure,
    series_figure,
    stats_by,
)
from casslab.report.frames import run_kpis
from casslab.report.lww import lww_section
from casslab.report.profiles import CellStacks, profile_section
from casslab.report.recall_figure import recall_figures
from casslab.report.report_document import (
    Report,
    Section,
    Table,
    TableRow,
    Tone,
    VerdictRow,
)
from casslab.report.resources import resource_tables
from casslab.report.software_facts import software_facts
from casslab.store.run_data import RunData
from casslab.store.run_records import TrialStatus

METHOD_NOTES = (
    "Each cell ran {iterations}; a KPI is one number per trial (the measure phase only; "
    "warm-up discarded).",
    "Steady state: each trial's KPIs cover the steady part of its measure phase, from the "
    "end of the warm-up transient that MSER-5 truncation finds in its per-second op rate and "
    "mean latency (White 1997; White, Cobb & Spratt 2000: batch means of 5, the point that "
    "minimises the marginal standard error; the later of the two series' points). Latency "
    "percentiles over that part are merged from the trial's HdrHistograms, exactly; errors "
    "count the whole measure phase. A trial whose transient does not end within the first "
    "half of its measure phase (a trend), or with fewer than 10 batches (50 s) to judge, is "
    "flagged NOT STEADY and keeps its whole measure phase; a trial of an older casslab "
    "records no steady state and its KPIs cover the whole measure phase.",
    "Per cell: mean, sample SD and variance (n-1), and a 95% confidence interval of the "
    "mean from Student's t distribution (mean ± t(0.975, n-1)·s/√n); with one iteration "
    "the interval is undetermined, never zero-width.",
    "Against the baseline cell: Welch's unequal-variances t-test (two-sided, alpha={alpha}, "
    "{correction}); the ratio of means with Fieller's 95% interval; a verdict of better or "
    "worse only for KPIs with a direction, higher/lower for neutral ones (resources, "
    "compaction work), 'not significant' when p >= alpha, and 'undetermined' when a cell "
    "has fewer than 2 values or neither cell varies.",
    "Latency is response time counted from each operation's intended start, so it includes "
    "queueing (no coordinated omission); percentiles come from HdrHistograms.",
    "Failed trials are listed but left out of the statistics.",
)


def _facts(run: RunData, layout: CellLayout, finished: int) -> list[tuple[str, str]]:
    manifest = run.manifest
    experiment = manifest.experiment
    facts = [
        ("experiment", manifest.experiment_name),
        ("run", manifest.run_id),
        ("started", manifest.started_at.isoformat(timespec="seconds")),
        (
            "ended",
            manifest.ended_at.isoformat(timespec="seconds") if manifest.ended_at else "not ended",
        ),
        ("trials", f"{finished} finished of {manifest.trials_planned or len(run.trials)} planned"),
        ("stop rule", manifest.stop_rule or "not recorded"),
        ("data seed", "not recorded" if manifest.data_seed is None else str(manifest.data_seed)),
        (
            "load engine",
            f"pinned to CPUs {manifest.engine_cpus}" if manifest.engine_cpus else "not pinned",
        ),
        ("steady state", steady_fact(run)),
        ("design", f"{experiment.get('design', 'factorial')}, {len(layout.cells)} cells"),
        ("baseline cell", layout.baseline_cell or "none"),
        *software_facts(manifest),
    ]
    return facts


# ---------------------------------------------------------------- tables


def verdict_table(rows: Sequence[VerdictRow], baseline: str | None) -> Table:
    cautioned = any(row.caution for row in rows)
    table_rows = [
        TableRow(
            cells=[
                row.kpi,
                row.unit,
                row.cell_id,
                text.number(row.baseline_mean),
                text.number(row.cell_mean),
                text.percent(row.change_pct),
                text.ratio(row.ratio, row.ratio_low, row.ratio_high),
                text.p_value(row.p_value),
                row.verdict_text,
                *([row.caution or text.DASH] if cautioned else []),
            ],
            tone=text.VERDICT_TONE[row.verdict],
        )
        for row in rows
    ]
    note = "ratio = cell mean / baseline mean (Fieller's 95% interval); p from Welch's t-test"
    if cautioned:
        note += (
            "; caution: the trials of the two cells that are flagged NOT STEADY (their KPIs "
            "cover a measure phase with no steady part) or failed (left out of the statistics)"
        )
    return Table(
        id="verdicts",
        title=f"Verdicts against the baseline cell {baseline}" if baseline else "Verdicts",
        columns=[
            "KPI",
            "unit",
            "cell",
            "baseline mean",
            "cell mean",
            "change",
            "ratio [95% CI]",
            "p",
            "verdict",
            *(["caution"] if cautioned else []),
        ],
        rows=table_rows,
        note=note,
    )


def overview_table(analysis: Analysis, cells: Sequence[str]) -> Table:
    """One row per cell, one column per KPI: ``mean ± 95% CI half-width``."""
    stats = stats_by(analysis)
    rows = []
    for cell in cells:
        values = [text.mean_ci(stats[(cell, kpi)]) for kpi in analysis.kpis if (cell, kpi) in stats]
        n = max((stats[(cell, k)].n for k in analysis.kpis if (cell, k) in stats), default=0)
        tone = Tone.GOOD if cell == analysis.baseline_cell else Tone.NEUTRAL
        rows.append(TableRow(cells=[cell, str(n), *values], tone=tone))
    return Table(
        id="cells",
        title="Cells: mean ± 95% CI half-width",
        columns=["cell", "n", *(kpi_label(k) for k in analysis.kpis)],
        rows=rows,
        note="Student-t 95% confidence interval of the mean over the iterations of each cell",
    )


def kpi_table(analysis: Analysis, kpi: str, cells: Sequence[str]) -> Table:
    stats = stats_by(analysis)
    rows = []
    for cell in cells:
        s = stats.get((cell, kpi))
        if s is None:
            continue
        rows.append(
            TableRow(
                cells=[
                    cell,
                    str(s.n),
                    text.number(s.mean),
                    text.ci_range(s),
                    text.number(s.sd),
                    text.number(s.var),
                    text.cv_text(s),
                    text.number(s.rmse),
                    text.number(s.min),
                    text.number(s.max),
                ]
            )
        )
    return Table(
        id=f"cells-{kpi}",
        title=f"{kpi_label(kpi)}: {kpi_spec(kpi).help}",
        columns=["cell", "n", "mean", "95% CI", "SD", "variance", "CV", "RMSE", "min", "max"],
        rows=rows,
    )


def trials_table(run: RunData, kpis: Sequence[str]) -> Table:
    rows = []
    for trial in sorted(run.trials, key=lambda t: t.result.order_index):
        result = trial.result
        values = trial_kpis_of(trial).kpis
        ok = result.status is TrialStatus.OK
        status = result.status.value if ok else f"{result.status.value}: {result.error or ''}"
        steadiness = trial_steadiness(trial)
        steady = (
            text.DASH
            if steadiness is None
            else text.steady_text(steadiness.steady, steadiness.start_s, steadiness.reason)
        )
        tone = Tone.NEUTRAL
        if not ok:
            tone = Tone.BAD
        elif steadiness is not None and not steadiness.steady:
            tone = Tone.CHANGED
        rows.append(
            TableRow(
                cells=[
                    str(result.order_index),
                    result.trial_id,
                    status,
                    steady,
                    *(text.number(values.get(k)) for k in kpis),
                ],
                tone=tone,
            )
        )
    return Table(
        id="trials",
        title="Trials in run order",
        columns=["#", "trial", "status", "steady state", *(kpi_label(k) for k in kpis)],
        rows=rows,
        note=(
            "steady state: where the trial's steady part begins, in seconds since its measure "
            "phase began (MSER-5); its KPIs cover what follows. NOT STEADY: no steady part was "
            "found (a trend, or too short to judge) and the KPIs cover the whole measure "
            "phase; - : not recorded"
        ),
    )


# ---------------------------------------------------------------- warnings


def trial_warnings(run: RunData) -> list[str]:
    out = list(run.problems)
    for trial in run.trials:
        result = trial.result
        if result.status is not TrialStatus.OK:
            out.append(
                f"trial {result.trial_id} failed: {result.error or 'no error recorded'}; "
                "it is left out of the statistics"
            )
        elif (steadiness := trial_steadiness(trial)) is not None and not steadiness.steady:
            out.append(f"trial {result.trial_id} is NOT STEADY: {steadiness.reason or 'no reason'}")
        if result.status is TrialStatus.OK and trial.problems:
            out.append(f"trial {result.trial_id}: {'; '.join(trial.problems)}")
        if trial.engine_errors:
            out.append(
                f"trial {result.trial_id}: the engine reported {len(trial.engine_errors)} "
                f"error record(s), first: {trial.engine_errors[0]}"
            )
    return out


def _dedupe(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


# ---------------------------------------------------------------- the report


def run_analysis(
    run: RunData, options: AnalysisOptions = AnalysisOptions()
) -> tuple[Analysis | None, list[TrialKpis], CellLayout]:
    """The statistics of a run's finished trials (None when no trial finished)."""
    layout = cell_layout(run)
    trials = analysed_trials(run)
    if not trials:
        return None, trials, layout
    present = {t.cell_id for t in trials}
    baseline = layout.baseline_cell if layout.baseline_cell in present else None
    analysis = analyse(trials, run_kpis(run), baseline_cell=baseline, options=options)
    return analysis, trials, layout


def _method_notes(run: RunData, options: AnalysisOptions) -> list[str]:
    iterations = run.manifest.experiment.get("iterations")
    correction = (
        "Holm-adjusted over the cells of each KPI"
        if options.correction is Correction.HOLM
        else "no multiple-comparison correction"
    )
    if isinstance(iterations, dict):  # adaptive: {min, max, until}
        until = iterations.get("until") or {}
        ended = run.manifest.stop_rule or "the rule that ended the run was not recorded"
        counted = (
            f"at least {iterations.get('min')} and at most {iterations.get('max')} iterations, "
            "rounds added until every cell's CI half-width on "
            f"{', '.join(until.get('kpis') or [])} was at most "
            f"{until.get('ci_half_width_pct')}% of its mean ({ended})"
        )
    else:
        counted = f"{iterations} iterations" if iterations else "its iterations"
    values = {
        "iterations": counted,
        "alpha": f"{options.alpha:g}",
        "correction": correction,
    }
    return [note.format(**values) for note in METHOD_NOTES]


def build_report(
    run: RunData,
    options: AnalysisOptions = AnalysisOptions(),
    *,
    window_s: float | None = None,
    claims: Sequence[Claim] | None = None,
    profiles: CellStacks | None = None,
) -> Report:
    """The report of one run (see the module docstring); ``claims``: judge these instead of
    the claims the manifest recorded (a run made before its experiment file had them);
    ``profiles``: each cell's merged profile stacks, for its flame graphs' section."""
    analysis, trials, layout = run_analysis(run, options)
    cells = [c for c in layout.cells if any(t.result.cell_id == c for t in run.trials)]
    colors = cell_colors(cells)
    kpis = run_kpis(run)
    warnings = trial_warnings(run)
    if layout.note:
        warnings.insert(0, layout.note)
    sections: list[Section] = []
    verdicts: list[VerdictRow] = []
    if analysis is None:
        warnings.insert(0, "no trial finished: there are no statistics to report")
        sections.append(
            Section(
                id="verdicts",
                title="Verdicts",
                paragraphs=["No trial of this run finished, so nothing can be compared."],
            )
        )
    else:
        warnings += [w.message for w in analysis.warnings]
        verdicts = with_cautions(
            [text.comparison_row(c) for c in analysis.comparisons], cell_cautions(run)
        )
        sections.append(_verdict_section(analysis, verdicts))
        limits = bottleneck_section(run, cells)
        if limits is not None:  # what limited each cell, next to the verdicts
            sections.append(limits)
    profiled = profile_section(run, cells, layout.baseline_cell, profiles)
    if profiled is not None:  # where the nodes spent their time, next to the verdicts
        sections.append(profiled)
    if analysis is not None:
        sections.append(
            Section(
                id="cells",
                title="Cells",
                tables=[
                    overview_table(analysis, cells),
                    *(kpi_table(analysis, k, cells) for k in analysis.kpis),
                    *resource_tables(trials, cells, options.confidence),
                ],
                figures=[
                    *(bar_figure(analysis, k, cells, colors) for k in analysis.kpis),
                    *(
                        figure
                        for k in analysis.kpis
                        if (figure := level_bar_figure(trials, k, cells, options.confidence))
                    ),
                    *recall_figures(trials, cells, colors),
                ],
            )
        )
    opening = claims_section(run.manifest.experiment, trials, options, claims)
    if opening is not None:  # the report opens with the study's claims
        sections.insert(0, opening)
    time_figures = [series_figure(run, k, cells, colors) for k in SERIES_KPIS]
    sections.append(
        Section(
            id="time-series",
            title="Time series",
            paragraphs=[] if any(time_figures) else ["No trial has measured engine intervals."],
            figures=[f for f in time_figures if f is not None],
        )
    )
    if analysis is not None:
        latency = percentile_figure(trials, cells, colors, options.confidence)
        boxes = [box_figure(trials, k, cells, colors) for k in analysis.kpis]
        sections.append(
            Section(
                id="distributions",
                title="Latency percentiles and distributions",
                figures=[f for f in (latency, *boxes) if f is not None],
            )
        )
    found = discovered_section(run)
    if found is not None:
        sections.append(found)
    lost = lww_section(run, cells)
    if lost is not None:
        sections.append(lost)
    metrics = metric_figures(run, cells, colors, window_s=window_s)
    if metrics:
        sections.append(Section(id="metrics", title="Cluster metrics", figures=metrics))
    sections.append(Section(id="trials", title="Trials", tables=[trials_table(run, kpis)]))
    warnings = _dedupe(warnings)
    sections.append(
        Section(
            id="warnings",
            title="Warnings",
            bullets=warnings,
            paragraphs=[] if warnings else ["No warnings."],
        )
    )
    sections.append(Section(id="method", title="Method", bullets=_method_notes(run, options)))
    return Report(
        title=f"casslab report: {run.manifest.experiment_name}",
        facts=_facts(run, layout, len(trials)),
        verdicts=verdicts,
        sections=sections,
        warnings=warnings,
    )


def _verdict_section(analysis: Analysis, verdicts: Sequence[VerdictRow]) -> Section:
    if analysis.baseline_cell is None:
        return Section(
            id="verdicts",
            title="Verdicts",
            paragraphs=[
                "This run has a single cell (or no baseline cell with finished trials): "
                "there is nothing to compare; see the cell statistics below."
            ],
        )
    counts: dict[str, int] = {}
    for row in verdicts:
        counts[row.verdict_text] = counts.get(row.verdict_text, 0) + 1
    summary = ", ".join(f"{n} {label}" for label, n in counts.items())
    paragraphs = [
        f"Each cell against the baseline cell {analysis.baseline_cell} on each KPI: {summary}."
    ]
    cautioned = [row for row in verdicts if row.caution]
    if cautioned:
        paragraphs.append(
            f"Caution: {len(cautioned)} of {len(verdicts)} verdicts "
            "rest on trials flagged NOT STEADY or failed (named in the caution column); read "
            "them with care, and see the Trials and Warnings sections."
        )
    return Section(
        id="verdicts",
        title="Verdicts",
        paragraphs=paragraphs,
        tables=[verdict_table(verdicts, analysis.baseline_cell)],
    )
