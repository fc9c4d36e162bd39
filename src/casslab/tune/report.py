"""``report.html`` of a tuning run: one self-contained page (plotly.js inline, as the
experiment report embeds it: :mod:`casslab.report.html`).

Figures: Optuna's optimisation history, parallel coordinates of the tried settings and
parameter importance (``optuna.visualization``), and the comparison of the default, the
search's best and the one-at-a-time sweep's best (confirmed means with their 95% CIs).
Tables: the recommendation and the trials it rests on, the confirmation, every trial.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from html import escape
from typing import Any

import optuna
import plotly.graph_objects as go
import plotly.offline

from casslab.report.html import PLOT_CONFIG, RESIZE_JS, STYLE
from casslab.tune.space import describe
from casslab.tune.tuning_result import Point, ScoredTrial, TuningResult

_UNITS = {"op_rate": "ops/s", "p99_ms": "ms"}


def _div(figure: go.Figure) -> str:
    body: str = figure.to_html(full_html=False, include_plotlyjs=False, config=PLOT_CONFIG)
    return f'<div class="figure">{body}</div>'


def _optuna_figures(study: optuna.Study, metric: str, multi: bool) -> list[str]:
    """Optuna's own figures; one that cannot be drawn (too few trials) is a note."""
    target: Callable[[optuna.trial.FrozenTrial], float] | None = (
        (lambda t: t.values[0]) if multi else None
    )
    name = metric if not multi else "op_rate"
    out: list[str] = []
    makers: list[tuple[str, Callable[[], Any]]] = [
        (
            "optimisation history",
            lambda: optuna.visualization.plot_optimization_history(
                study, target=target, target_name=name
            ),
        ),
        (
            "parallel coordinates",
            lambda: optuna.visualization.plot_parallel_coordinate(
                study, target=target, target_name=name
            ),
        ),
        (
            "parameter importance",
            lambda: optuna.visualization.plot_param_importances(
                study,
                evaluator=optuna.importance.PedAnovaImportanceEvaluator(),
                target=target,
                target_name=name,
            ),
        ),
    ]
    for title, make in makers:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                figure = make()
        except (ValueError, RuntimeError, ZeroDivisionError) as error:
            out.append(f'<p class="note">{escape(title)}: not drawn ({escape(str(error))})</p>')
            continue
        figure.update_layout(title=title, template="plotly_white")
        out.append(_div(figure))
    return out


def _comparison(result: TuningResult) -> str:
    """Default vs the search's best vs the sweep's best, with 95% CIs where confirmed."""
    rows: list[tuple[str, Point]] = [("default", result.default), ("search best", result.best)]
    if result.sweep_best is not None:
        rows.append(("one-at-a-time best", result.sweep_best))
    names, means, lows, highs = [], [], [], []
    for name, point in rows:
        if point.objective is None:
            continue
        names.append(name)
        means.append(point.objective)
        low, high = point.ci if point.ci is not None else (point.objective, point.objective)
        lows.append(point.objective - low)
        highs.append(high - point.objective)
    figure = go.Figure(
        go.Bar(
            x=names,
            y=means,
            error_y={"type": "data", "array": highs, "arrayminus": lows, "visible": True},
        )
    )
    unit = _UNITS.get(result.metric, "")
    figure.update_layout(
        title=f"{result.metric} ({unit}): mean of the confirmation trials, 95% CI",
        template="plotly_white",
        height=380,
    )
    return _div(figure)


def _trials_table(trials: Sequence[ScoredTrial], title: str) -> str:
    rows = []
    for t in trials:
        m = t.measurement
        rate = f"{m.op_rate:,.0f}" if m.op_rate is not None else "-"
        p99 = f"{m.p99_ms:.1f}" if m.p99_ms is not None else "-"
        state = "ok" if t.feasible else "; ".join(t.violations)
        tone = "" if t.feasible else ' class="bad"'
        rows.append(
            f"<tr{tone}><td>{escape(m.label)}</td><td>{escape(t.role.value)}</td>"
            f"<td>{rate}</td><td>{p99}</td><td>{escape(state)}</td>"
            f"<td style='text-align:left'>{escape(describe(m.params))}</td></tr>"
        )
    head = (
        "<tr><th>trial</th><th>role</th><th>op_rate</th><th>p99 ms</th><th>feasible</th>"
        "<th>settings</th></tr>"
    )
    return f"<h2>{escape(title)}</h2><table>{head}{''.join(rows)}</table>"


def _confirmation_table(result: TuningResult) -> str:
    if not result.confirmations:
        return '<p class="note">No confirmation ran (confirm.top: 0, or no feasible candidate).</p>'
    rows = []
    for c in result.confirmations:
        gain = f"{c.gain_pct:+.1f}%" if c.gain_pct is not None else "-"
        ci = f"{c.gain_ci_pct[0]:+.1f}% .. {c.gain_ci_pct[1]:+.1f}%" if c.gain_ci_pct else "-"
        mean = f"{c.candidate.mean:,.1f}" if c.candidate.mean is not None else "-"
        base = f"{c.default.mean:,.1f}" if c.default.mean is not None else "-"
        rows.append(
            f"<tr><td>{escape(c.label)} ({escape(c.source.value)})</td><td>{mean}</td>"
            f"<td>{base}</td><td>{gain}</td><td>{ci}</td><td>{escape(c.verdict.value)}</td>"
            f"<td style='text-align:left'>{escape(', '.join(c.candidate.labels))} vs "
            f"{escape(', '.join(c.default.labels))}</td></tr>"
        )
    head = (
        f"<tr><th>candidate</th><th>mean {escape(result.metric)}</th><th>default</th>"
        "<th>gain</th><th>95% CI</th><th>verdict</th><th>trials</th></tr>"
    )
    method = escape(result.confirmations[0].method)
    return f'<table>{head}{"".join(rows)}</table><p class="note">{method}</p>'


def render_report(result: TuningResult, study: optuna.Study) -> str:
    """The page (pure but for Optuna reading the study)."""
    rec = result.recommendation
    multi = len(study.directions) > 1
    importance = ", ".join(f"{k} {v:.2f}" for k, v in result.importance.items()) or "-"
    parts = [
        f"<h1>casslab tune: {escape(result.name)}</h1>",
        f"<p>Objective: {escape(result.objective)}. Search: {len(result.trials)} trials "
        f"({escape(result.stopped_by)}), {result.search_s:.0f} s of trials.</p>",
        "<h2>Recommendation</h2>",
        f"<p><b>{escape(rec.verdict.value)}</b>: {escape(rec.sentence)}</p>",
        _confirmation_table(result),
        "<h2>Default, search best and one-at-a-time best</h2>"
        if result.sweep
        else "<h2>Default and search best</h2><p class='note'>No one-at-a-time sweep ran "
        "(tune.compare: one-at-a-time or --compare-sweep adds one of the same budget).</p>",
        _comparison(result),
        "<h2>Search</h2>",
        *_optuna_figures(study, result.metric, multi),
        f'<p class="note">Importance ({escape(result.importance_method)}): {escape(importance)}</p>'
        if result.importance
        else '<p class="note">Importance in tuning.json: not computed (it needs 4 feasible '
        "search trials besides the default, with some spread); the figure is Optuna's over "
        "every trial.</p>",
        _trials_table(result.trials, "Search trials"),
    ]
    if result.sweep:
        parts.append(_trials_table(result.sweep, "One-at-a-time sweep (same trial budget)"))
    plotly_js = plotly.offline.get_plotlyjs()
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>casslab tune {escape(result.name)}</title><style>{STYLE}</style>"
        f'<script type="text/javascript">{plotly_js}</script></head>'
        f"<body><main>{''.join(parts)}</main><script>{RESIZE_JS}</script></body></html>"
    )


def write_report(result: TuningResult, run_dir: Any) -> Any:
    """Write ``report.html`` from the result and the run's study; its path."""
    from casslab.store.io import atomic_write
    from casslab.tune.search import STUDY_NAME, storage_url

    study = optuna.load_study(study_name=STUDY_NAME, storage=storage_url(run_dir))
    return atomic_write(run_dir / "report.html", render_report(result, study))
