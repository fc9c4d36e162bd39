"""Two runs -> one comparison Report (pure): run B against run A, cell by cell.

Cells are matched by id (the same experiment file gives the same ids); two runs of one
cell each are matched whatever their ids. For each matched cell and KPI:

* both runs have at least 2 finished trials of the cell: Welch's t-test over the per-trial
  values with Fieller's ratio interval (:func:`casslab.analysis.compare_stats`);
* each run has exactly one trial: the two trials' per-interval series, Welch's t-test with
  effective sample sizes corrected for lag-1 autocorrelation
  (:func:`casslab.analysis.compare_series`), for the KPIs the engine reports per interval;
  other KPIs are undetermined;
* otherwise the comparison is undetermined (a cell with one value has no spread).
"""

from __future__ import annotations

from collections.abc import Sequence

from casslab.analysis import (
    AnalysisOptions,
    Comparison,
    TrialKpis,
    Verdict,
    compare_series,
    compare_stats,
    describe,
    interval_series,
    kpi_spec,
)
from casslab.analysis.run_frames import (
    INTERVAL_KPIS,
    analysed_trials,
    cell_layout,
    measure_intervals,
)
from casslab.errors import ReportError
from casslab.report import text
from casslab.report.build import trial_warnings
from casslab.report.frames import run_kpis as kpis_of
from casslab.report.report_document import (
    FigureKind,
    FigureSpec,
    Report,
    Section,
    Series,
    Table,
    TableRow,
    VerdictRow,
)
from casslab.store.run_data import RunData, TrialData
from casslab.store.run_records import TrialStatus

RUN_COLORS = {"A": "#1f77b4", "B": "#d62728"}
PER_TRIAL = "per-trial Welch"
PER_INTERVAL = "intervals, autocorrelation-corrected Welch"
SERIES_KPIS = ("op_rate", "latency_p99_ms")

METHOD_NOTES = (
    "Run A is the baseline; run B is compared with it, cell by cell (cells matched by id).",
    "With at least 2 trials of a cell in each run: Welch's unequal-variances t-test over "
    "the per-trial values (two-sided, alpha={alpha}) and the ratio B/A with Fieller's 95% "
    "interval.",
    "With one trial in each run: the per-second interval series of the two trials, Welch's "
    "t-test with effective sample sizes n_eff = n(1-r1)/(1+r1) from the lag-1 "
    "autocorrelation r1 (consecutive seconds are not independent); only KPIs the engine "
    "reports per interval can be compared this way.",
    "'not significant' means p >= alpha; 'undetermined' means the test could not be "
    "computed (too few values, no variation).",
)


def _interval_capable(kpi: str) -> bool:
    return kpi.rpartition(".")[2] in INTERVAL_KPIS


def matched_cells(a: RunData, b: RunData) -> list[tuple[str, str]]:
    """(cell in A, cell in B) pairs to compare; ReportError when the runs share none."""
    cells_a = [c for c in cell_layout(a).cells if any(t.result.cell_id == c for t in a.trials)]
    cells_b = [c for c in cell_layout(b).cells if any(t.result.cell_id == c for t in b.trials)]
    shared = [(c, c) for c in cells_a if c in cells_b]
    if shared:
        return shared
    if len(cells_a) == 1 and len(cells_b) == 1:
        return [(cells_a[0], cells_b[0])]
    raise ReportError(
        f"compare {a.root} with {b.root}: the runs share no cell (A has {cells_a}, B has "
        f"{cells_b}); compare runs of the same experiment file, or runs of one cell each"
    )


def _ok_trials(run: RunData, cell: str) -> list[TrialData]:
    return [t for t in run.trials if t.result.cell_id == cell and t.result.status is TrialStatus.OK]


class _Pair:
    """The inputs of one matched cell."""

    def __init__(self, a: RunData, b: RunData, cell_a: str, cell_b: str) -> None:
        self.cell_a = cell_a
        self.cell_b = cell_b
        self.trials_a = _ok_trials(a, cell_a)
        self.trials_b = _ok_trials(b, cell_b)
        kpis_a: list[TrialKpis] = [t for t in analysed_trials(a) if t.cell_id == cell_a]
        kpis_b: list[TrialKpis] = [t for t in analysed_trials(b) if t.cell_id == cell_b]
        self.kpis_a = kpis_a
        self.kpis_b = kpis_b

    @property
    def single(self) -> bool:
        return len(self.trials_a) == 1 and len(self.trials_b) == 1


def _compare_pair(
    pair: _Pair, kpi: str, options: AnalysisOptions
) -> tuple[VerdictRow, str, list[str]]:
    """The verdict row, the method used and warning messages of one KPI of one cell."""
    if pair.single:
        if not _interval_capable(kpi):
            reason = (
                f"one trial per run and {kpi} has no per-interval series: run at least 2 "
                "iterations per cell to compare it"
            )
            row = text.verdict_row(
                kpi,
                f"B {pair.cell_b}",
                f"A {pair.cell_a}",
                verdict=Verdict.UNDETERMINED,
                reason=reason,
            )
            return row, PER_INTERVAL, []
        series = compare_series(
            interval_series(pair.trials_a[0].intervals, kpi),
            interval_series(pair.trials_b[0].intervals, kpi),
            kpi,
            options,
        )
        row = text.verdict_row(
            kpi,
            f"B {pair.cell_b}",
            f"A {pair.cell_a}",
            verdict=series.verdict,
            reason=series.verdict_reason,
            baseline_mean=series.baseline.mean,
            cell_mean=series.candidate.mean,
            change_pct=series.change_pct,
            ratio=series.ratio,
            p_value=series.p_value,
        )
        return row, PER_INTERVAL, [w.message for w in series.warnings]
    base = describe(
        [t.kpis.get(kpi) for t in pair.kpis_a],
        cell_id=f"A {pair.cell_a}",
        kpi=kpi,
        confidence=options.confidence,
    )
    cand = describe(
        [t.kpis.get(kpi) for t in pair.kpis_b],
        cell_id=f"B {pair.cell_b}",
        kpi=kpi,
        confidence=options.confidence,
    )
    comparison: Comparison = compare_stats(base, cand, options)
    return text.comparison_row(comparison), PER_TRIAL, [w.message for w in comparison.warnings]


def _series_figures(a_pair: _Pair, cell_label: str, index: int) -> list[FigureSpec]:
    out: list[FigureSpec] = []
    for kpi in SERIES_KPIS:
        series: list[Series] = []
        for run, trials in (("A", a_pair.trials_a), ("B", a_pair.trials_b)):
            for number, trial in enumerate(trials):
                times, _origin = measure_intervals(trial)
                if not times:
                    continue
                series.append(
                    Series(
                        name=f"run {run} #{trial.result.iteration}",
                        x=times,
                        y=interval_series(trial.intervals, kpi),
                        color=RUN_COLORS[run],
                        group=f"run {run}",
                        show_legend=number == 0,
                    )
                )
        if series:
            out.append(
                FigureSpec(
                    id=f"compare-series-{index}-{kpi}",
                    kind=FigureKind.LINES,
                    title=f"{kpi} per interval, {cell_label}: run A vs run B",
                    x_label="seconds since the measure phase began",
                    y_label=f"{kpi} ({kpi_spec(kpi).unit})",
                    series=series,
                )
            )
    return out


def _bar_figure(
    kpi: str, rows: Sequence[tuple[_Pair, VerdictRow]], options: AnalysisOptions
) -> FigureSpec:
    series: list[Series] = []
    for pair, _row in rows:
        for run, values, cell in (
            ("A", pair.kpis_a, pair.cell_a),
            ("B", pair.kpis_b, pair.cell_b),
        ):
            stats = describe(
                [t.kpis.get(kpi) for t in values],
                cell_id=cell,
                kpi=kpi,
                confidence=options.confidence,
            )
            low = None if stats.ci is None or stats.mean is None else stats.mean - stats.ci.low
            high = None if stats.ci is None or stats.mean is None else stats.ci.high - stats.mean
            series.append(
                Series(
                    name=f"{run} {cell}",
                    x=[f"{run} {cell}"],
                    y=[stats.mean],
                    error_low=[low],
                    error_high=[high],
                    color=RUN_COLORS[run],
                    group=f"run {run}",
                )
            )
    return FigureSpec(
        id=f"compare-bars-{kpi.replace('.', '-')}",
        kind=FigureKind.BARS,
        title=f"{kpi}: mean and 95% CI per cell, run A vs run B",
        x_label="run and cell",
        y_label=f"{kpi} ({kpi_spec(kpi).unit})",
        series=series,
        note="error bars: Student-t 95% CI over the trials (none with one trial)",
    )


def build_comparison(
    a: RunData, b: RunData, options: AnalysisOptions = AnalysisOptions()
) -> Report:
    """Run B against run A (see the module docstring)."""
    pairs = [_Pair(a, b, ca, cb) for ca, cb in matched_cells(a, b)]
    kpis = list(dict.fromkeys([*kpis_of(a), *kpis_of(b)]))
    rows: list[VerdictRow] = []
    table_rows: list[TableRow] = []
    warnings: list[str] = []
    if a.manifest.experiment_name != b.manifest.experiment_name:
        warnings.append(
            f"the runs are of different experiments ({a.manifest.experiment_name!r} and "
            f"{b.manifest.experiment_name!r}): cells are matched by id only"
        )
    by_kpi: dict[str, list[tuple[_Pair, VerdictRow]]] = {}
    for kpi in kpis:
        for pair in pairs:
            row, method, messages = _compare_pair(pair, kpi, options)
            rows.append(row)
            by_kpi.setdefault(kpi, []).append((pair, row))
            warnings += messages
            table_rows.append(
                TableRow(
                    cells=[
                        kpi,
                        row.unit,
                        pair.cell_a
                        if pair.cell_a == pair.cell_b
                        else f"{pair.cell_a} / {pair.cell_b}",
                        text.number(row.baseline_mean),
                        text.number(row.cell_mean),
                        text.percent(row.change_pct),
                        text.ratio(row.ratio, row.ratio_low, row.ratio_high),
                        text.p_value(row.p_value),
                        row.verdict_text,
                        method,
                    ],
                    tone=text.VERDICT_TONE[row.verdict],
                )
            )
    table = Table(
        id="compare",
        title="Run B against run A",
        columns=[
            "KPI",
            "unit",
            "cell",
            "A mean",
            "B mean",
            "change",
            "ratio B/A [95% CI]",
            "p",
            "verdict",
            "method",
        ],
        rows=table_rows,
    )
    figures = [
        _bar_figure(kpi, by_kpi[kpi], options)
        for kpi in kpis
        if not all(p.single for p, _ in by_kpi[kpi])
    ]
    for index, pair in enumerate(pairs):
        label = pair.cell_a if pair.cell_a == pair.cell_b else f"{pair.cell_a} / {pair.cell_b}"
        figures += _series_figures(pair, label, index)
    warnings += [f"run A: {w}" for w in trial_warnings(a)]
    warnings += [f"run B: {w}" for w in trial_warnings(b)]
    warnings = list(dict.fromkeys(warnings))
    sections = [
        Section(id="verdicts", title="Verdicts", tables=[table]),
        Section(id="figures", title="Figures", figures=figures),
        Section(
            id="warnings",
            title="Warnings",
            bullets=warnings,
            paragraphs=[] if warnings else ["No warnings."],
        ),
        Section(
            id="method",
            title="Method",
            bullets=[note.format(alpha=f"{options.alpha:g}") for note in METHOD_NOTES],
        ),
    ]
    facts = [
        ("run A (baseline)", f"{a.manifest.experiment_name} {a.manifest.run_id} ({a.root})"),
        ("run B", f"{b.manifest.experiment_name} {b.manifest.run_id} ({b.root})"),
        ("cells compared", str(len(pairs))),
    ]
    return Report(
        title=f"casslab comparison: {b.manifest.run_id} vs {a.manifest.run_id}",
        facts=facts,
        verdicts=rows,
        sections=sections,
        warnings=warnings,
    )
