"""Figure specifications of a run's report (pure): what each figure shows, not how.

* KPI time series per cell, one line per iteration (:func:`series_figure`);
* mean and 95% CI per cell (:func:`bar_figure`) and per factor level (:func:`level_bar_figure`);
* response-time percentiles per cell (:func:`percentile_figure`);
* the per-trial values of a KPI per cell (:func:`box_figure`);
* cluster metrics over the measure window, one line per iteration (:func:`metric_figures`).

The time-series figures mark where each trial's steady part begins (MSER-5,
:func:`steady_markers`): a dotted vertical line per trial in its cell's colour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from casslab.analysis import Analysis, CellStats, TrialKpis, describe, interval_series, kpi_spec
from casslab.analysis.run_frames import measure_intervals, trial_steadiness
from casslab.report.frames import metric_nodes, metric_series
from casslab.report.report_document import FigureKind, FigureSpec, Marker, Series
from casslab.report.timeseries import (
    SEED_FIGURES,
    SERVER_FIGURES,
    fault_bands,
    table_figures,
    windowed_lines,
    workload_table,
)
from casslab.store.run_data import RunData, TrialData
from casslab.store.run_records import TrialStatus

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)

SERIES_KPIS = ("op_rate", "latency_p99_ms")
FAULT_NOTE = "shaded: a fault's window, from its start until its node was back (faults.json)"
PERCENTILE_KPIS = (
    ("p50", "latency_p50_ms"),
    ("p95", "latency_p95_ms"),
    ("p99", "latency_p99_ms"),
    ("p99.9", "latency_p999_ms"),
    ("max", "latency_max_ms"),
)
# (figure id, metric, how nodes combine, title, unit)
METRIC_FIGURES = (
    ("metric-cpu-busy", "host.cpu_busy_pct", "mean", "CPU busy (host)", "%"),
    (
        "metric-compactions-pending",
        "cassandra.compactions_pending",
        "sum",
        "Compactions pending (all nodes)",
        "count",
    ),
    ("metric-sstables", "cassandra.sstables", "sum", "Live SSTables (all nodes)", "count"),
    # seed 004's figures: each node's clock against casslab's, and the probe's delay
    ("metric-clock-offset", "clock.offset_ms", "node", "Clock offset by node", "ms"),
    ("metric-clock-delay", "clock.delay_ms", "node", "Clock probe delay by node", "ms"),
)


def cell_colors(cells: Sequence[str]) -> dict[str, str]:
    """A stable colour per cell, in cell order (shared by HTML and PNG figures)."""
    return {cell: PALETTE[index % len(PALETTE)] for index, cell in enumerate(cells)}


def stats_by(analysis: Analysis) -> dict[tuple[str, str], CellStats]:
    return {(s.cell_id, s.kpi): s for s in analysis.stats}


def kpi_label(kpi: str) -> str:
    spec = kpi_spec(kpi)
    return f"{kpi} ({spec.unit})"


STEADY_LEGEND = "steady part begins (MSER-5)"


def _trials_of(run: RunData, cell: str) -> list[TrialData]:
    return sorted(
        (t for t in run.trials if t.result.cell_id == cell), key=lambda t: t.result.iteration
    )


def steady_markers(
    run: RunData, cells: Sequence[str], colors: dict[str, str]
) -> tuple[list[Marker], str]:
    """A marker where each steady trial's steady part begins (after 0 s), and a note naming
    the trials steady from the start and those not steady; no marker and no note for
    trials that record no steady state (an older casslab)."""
    markers: list[Marker] = []
    from_start: list[str] = []
    unsteady: list[str] = []
    for cell in cells:
        for trial in _trials_of(run, cell):
            steadiness = trial_steadiness(trial)
            if steadiness is None:
                continue
            name = f"{cell} #{trial.result.iteration}"
            if not steadiness.steady:
                unsteady.append(name)
            elif steadiness.start_s <= 0.0:
                from_start.append(name)
            else:
                text = f"steady from {steadiness.start_s:.0f} s"
                markers.append(
                    Marker(
                        x=steadiness.start_s, label=f"{name}: {text}", text=text, color=colors[cell]
                    )
                )
    notes: list[str] = []
    if markers:
        notes.append(
            "dotted vertical lines: where each trial's steady part begins (MSER-5); its KPIs "
            "cover what follows"
        )
    if from_start:
        notes.append(f"steady from 0 s: {', '.join(from_start)}")
    if unsteady:
        notes.append(f"NOT steady (KPIs over the whole measured phase): {', '.join(unsteady)}")
    return markers, "; ".join(notes)


def _with_steady(note: str, steady_note: str) -> str:
    return "; ".join(n for n in (note, steady_note) if n)


def series_figure(
    run: RunData, kpi: str, cells: Sequence[str], colors: dict[str, str]
) -> FigureSpec | None:
    """One KPI per measured interval; a colour per cell, a line per iteration."""
    series: list[Series] = []
    for cell in cells:
        first = True
        for trial in _trials_of(run, cell):
            times, _origin = measure_intervals(trial)
            if not times:
                continue
            values = interval_series(trial.intervals, kpi)
            series.append(
                Series(
                    name=f"{cell} #{trial.result.iteration}",
                    x=times,
                    y=values,
                    color=colors[cell],
                    group=cell,
                    show_legend=first,
                    dash=trial.result.status is not TrialStatus.OK,
                )
            )
            first = False
    if not series:
        return None
    markers, steady_note = steady_markers(run, cells, colors)
    bands = fault_bands(run, cells)
    return FigureSpec(
        id=f"series-{kpi.replace('.', '-')}",
        kind=FigureKind.LINES,
        title=f"{kpi} per interval, iterations overlaid",
        x_label="seconds since the measure phase began",
        y_label=kpi_label(kpi),
        series=series,
        note=_with_steady(
            "one line per iteration, one colour per cell; dashed = failed trial"
            + ("; " + FAULT_NOTE if bands else ""),
            steady_note,
        ),
        markers=markers,
        marker_legend=STEADY_LEGEND if markers else "",
        bands=bands,
    )


def _error_bars(stats: Sequence[CellStats]) -> tuple[list[float | None], list[float | None]]:
    low: list[float | None] = []
    high: list[float | None] = []
    for s in stats:
        if s.ci is None or s.mean is None:
            low.append(None)
            high.append(None)
        else:
            low.append(s.mean - s.ci.low)
            high.append(s.ci.high - s.mean)
    return low, high


def bar_figure(
    analysis: Analysis, kpi: str, cells: Sequence[str], colors: dict[str, str]
) -> FigureSpec:
    """Mean ± 95% CI of one KPI, one bar per cell (per combination of factor levels)."""
    stats = stats_by(analysis)
    series: list[Series] = []
    for cell in cells:
        s = stats.get((cell, kpi))
        if s is None:
            continue
        low, high = _error_bars([s])
        series.append(
            Series(
                name=cell,
                x=[cell],
                y=[s.mean],
                error_low=low,
                error_high=high,
                color=colors[cell],
                group=cell,
            )
        )
    return FigureSpec(
        id=f"bars-{kpi.replace('.', '-')}",
        kind=FigureKind.BARS,
        title=f"{kpi}: mean and 95% CI per cell",
        x_label="cell (factor levels)",
        y_label=kpi_label(kpi),
        series=series,
        note="error bars: Student-t 95% confidence interval of the mean",
    )


def _levels_in_cell_order(
    trials: Sequence[TrialKpis], factor: str, cells: Sequence[str]
) -> list[str]:
    order = {cell: index for index, cell in enumerate(cells)}
    levels: list[str] = []
    for trial in sorted(trials, key=lambda t: order.get(t.cell_id, len(order))):
        level = trial.factors.get(factor)
        if level is not None and level not in levels:
            levels.append(level)
    return levels


def level_bar_figure(
    trials: Sequence[TrialKpis], kpi: str, cells: Sequence[str], confidence: float = 0.95
) -> FigureSpec | None:
    """Mean ± CI of one KPI per level of each factor, pooling the trials of every cell at
    that level (a main effect). Only for runs with two or more factors: with one factor,
    the per-cell bars already are the per-level bars."""
    factors = list(trials[0].factors) if trials else []
    if len(factors) < 2:
        return None
    series: list[Series] = []
    for index, factor in enumerate(factors):
        color = PALETTE[index % len(PALETTE)]
        for position, level in enumerate(_levels_in_cell_order(trials, factor, cells)):
            label = f"{factor}={level}"
            values = [t.kpis.get(kpi) for t in trials if t.factors.get(factor) == level]
            stats = describe(values, cell_id=label, kpi=kpi, confidence=confidence)
            low, high = _error_bars([stats])
            series.append(
                Series(
                    name=factor,
                    x=[label],
                    y=[stats.mean],
                    error_low=low,
                    error_high=high,
                    color=color,
                    group=factor,
                    show_legend=position == 0,
                )
            )
    return FigureSpec(
        id=f"levels-{kpi.replace('.', '-')}",
        kind=FigureKind.BARS,
        title=f"{kpi}: mean and 95% CI per factor level",
        x_label="factor level (other factors pooled)",
        y_label=kpi_label(kpi),
        series=series,
        note=(
            "each bar pools every trial at that level over the other factors' levels (a main "
            "effect): balanced in a factorial design; in an OFAT design the baseline level "
            "holds more trials. Interactions show in the per-cell bars, not here."
        ),
    )


def percentile_figure(
    trials: Sequence[TrialKpis], cells: Sequence[str], colors: dict[str, str], confidence: float
) -> FigureSpec | None:
    """Latency p50 / p95 / p99 / p99.9 / max per cell: the mean over iterations ± CI."""
    series: list[Series] = []
    labels = [label for label, _ in PERCENTILE_KPIS]
    for cell in cells:
        values = [t for t in trials if t.cell_id == cell]
        stats = [
            describe(
                [t.kpis.get(kpi) for t in values], cell_id=cell, kpi=kpi, confidence=confidence
            )
            for _, kpi in PERCENTILE_KPIS
        ]
        if all(s.mean is None for s in stats):
            continue
        low, high = _error_bars(stats)
        series.append(
            Series(
                name=cell,
                x=labels,
                y=[s.mean for s in stats],
                error_low=low,
                error_high=high,
                color=colors[cell],
                group=cell,
            )
        )
    if not series:
        return None
    return FigureSpec(
        id="latency-percentiles",
        kind=FigureKind.CURVES,
        title="Response-time percentiles per cell (mean over iterations, 95% CI)",
        x_label="percentile",
        y_label="latency (ms)",
        series=series,
        log_y=True,
    )


def box_figure(
    trials: Sequence[TrialKpis], kpi: str, cells: Sequence[str], colors: dict[str, str]
) -> FigureSpec | None:
    series: list[Series] = []
    for cell in cells:
        chosen = sorted((t for t in trials if t.cell_id == cell), key=lambda t: t.iteration)
        values = [t.kpis.get(kpi) for t in chosen]
        if all(v is None for v in values):
            continue
        series.append(
            Series(
                name=cell,
                x=[t.trial_id for t in chosen],
                y=values,
                color=colors[cell],
                group=cell,
            )
        )
    if not series:
        return None
    return FigureSpec(
        id=f"box-{kpi.replace('.', '-')}",
        kind=FigureKind.BOXES,
        title=f"{kpi}: distribution over iterations per cell",
        x_label="cell",
        y_label=kpi_label(kpi),
        series=series,
        note="every point is one trial",
    )


def metric_figures(
    run: RunData,
    cells: Sequence[str],
    colors: dict[str, str],
    *,
    window_s: float | None = None,
) -> list[FigureSpec]:
    """The cluster-metric figures (the report's, the seeds' and Cassandra's own view,
    :data:`SEED_FIGURES`, :data:`SERVER_FIGURES`, the workload table's): each
    iteration's line, or with ``window_s`` each cell's mean over its iterations in slots of
    that many seconds; faults' windows shaded."""
    out: list[FigureSpec] = []
    markers, steady_note = steady_markers(run, cells, colors)
    bands = fault_bands(run, cells)
    figures = [(*f, 1.0) for f in METRIC_FIGURES] + list(SEED_FIGURES) + list(SERVER_FIGURES)
    table = workload_table(run)
    figures += list(table_figures(table)) if table is not None else []
    for figure_id, metric, combine, title, unit, scale in figures:
        series: list[Series] = []
        legend: set[str] = set()  # the cells (or nodes) already in the legend
        for cell in cells:
            if window_s is not None:
                series += windowed_lines(
                    _trials_of(run, cell),
                    metric,
                    combine,
                    cell,
                    _node_color(run, metric, colors[cell]),
                    window_s=window_s,
                    scale=scale,
                )
                continue
            for trial in _trials_of(run, cell):
                lines = _trial_lines(trial, metric, combine, cell, colors[cell], legend)
                series += [_scaled(line, scale) for line in lines]
        if series:
            how = (
                f"mean of the iterations in {window_s:g} s slots"
                if window_s is not None
                else "iterations overlaid"
            )
            out.append(
                FigureSpec(
                    id=figure_id,
                    kind=FigureKind.LINES,
                    title=f"{title}, {how}",
                    x_label="seconds since the measure phase began",
                    y_label=f"{metric} ({unit})",
                    series=series,
                    note=_with_steady(FAULT_NOTE if bands else "", steady_note),
                    markers=[] if window_s is not None else markers,
                    marker_legend=STEADY_LEGEND if markers and window_s is None else "",
                    bands=bands,
                )
            )
    return out


def _scaled(series: Series, scale: float) -> Series:
    if scale == 1.0:
        return series
    return series.model_copy(update={"y": [None if v is None else v * scale for v in series.y]})


def _node_color(run: RunData, metric: str, cell_color: str) -> Callable[[str | None], str]:
    """A node's colour in a windowed figure (None: the cell's own line)."""
    nodes = sorted({n for t in run.trials for n in metric_nodes(t, metric)})
    by_node = cell_colors(nodes)
    return lambda node: cell_color if node is None else by_node.get(node, cell_color)


def _trial_lines(
    trial: TrialData, metric: str, combine: str, cell: str, color: str, legend: set[str]
) -> list[Series]:
    """A trial's lines in a metric figure: one, its nodes combined by ``combine`` and
    coloured by cell, or with ``combine="node"`` one per node, coloured by node; each cell
    (or node) in the legend once (``legend``: those already there)."""
    nodes: list[str | None] = [None]
    if combine == "node":
        nodes = list(sorted(metric_nodes(trial, metric)))
    node_colors = cell_colors([n for n in nodes if n is not None])
    out: list[Series] = []
    for node in nodes:
        times, values = metric_series(trial, metric, combine=combine, node=node)
        if not times:
            continue
        group = node or cell
        out.append(
            Series(
                name=f"{node + ' ' if node else ''}{cell} #{trial.result.iteration}",
                x=times,
                y=list(values),
                color=node_colors[node] if node else color,
                group=group,
                show_legend=group not in legend,
                dash=trial.result.status is not TrialStatus.OK,
            )
        )
        legend.add(group)
    return out
