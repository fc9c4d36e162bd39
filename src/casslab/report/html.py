"""Report -> one self-contained HTML page (pure: returns text).

plotly.js is embedded inline, once, in the page head (``plotly.offline.get_plotlyjs()``),
and no tag loads anything from the network, so the file works offline and can be mailed
or archived as is. Each figure is one ``<div class="plotly-graph-div">`` drawn by an inline
script.
"""

from __future__ import annotations

from functools import cache
from html import escape
from typing import Any
from urllib.parse import quote

import plotly.graph_objects as go
import plotly.io
import plotly.offline

from casslab.report.report_document import (
    FigureKind,
    FigureSpec,
    Report,
    Section,
    Series,
    Table,
    Tone,
)

FIGURE_HEIGHT_PX = 440
GRID_HEIGHT_PX = 380
GRID_KINDS = (FigureKind.BARS, FigureKind.BOXES)  # small figures, two per row
PLOT_CONFIG: dict[str, Any] = {"displaylogo": False, "responsive": True}
MARKER_LEGEND_COLOR = "#555555"
BAND_OPACITY = 0.12  # a fault's window, shaded under the lines

_TONE_CLASS = {
    Tone.GOOD: "good",
    Tone.BAD: "bad",
    Tone.CHANGED: "changed",
    Tone.NEUTRAL: "",
    Tone.UNKNOWN: "unknown",
}

# figures drawn while the page was still being laid out take their final size on load
RESIZE_JS = (
    'window.addEventListener("load", function () {'
    ' document.querySelectorAll(".js-plotly-plot").forEach(function (div) {'
    " Plotly.Plots.resize(div); }); });"
)

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
       color: #222; background: #fafafa; }
main { max-width: 1320px; margin: 0 auto; padding: 16px 28px 48px; }
h1 { font-size: 1.6em; margin: 0.4em 0; }
h2 { font-size: 1.3em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
table { border-collapse: collapse; margin: 0.4em 0 1em; font-size: 0.9em; background: #fff; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: right; vertical-align: top; }
th { background: #f0f0f0; }
td:first-child, th:first-child { text-align: left; }
table.facts td { text-align: left; }
tr.good td { background: #e6f4ea; }
tr.bad td { background: #fce8e6; }
tr.changed td { background: #fff4e0; }
tr.unknown td { background: #f1f1f1; color: #555; }
.note { color: #666; font-size: 0.85em; margin: 0 0 1em; }
.figure { background: #fff; border: 1px solid #e3e3e3; margin: 12px 0; padding: 4px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr));
        column-gap: 12px; }
.grid .figure { margin: 6px 0; min-width: 0; }
nav a { margin-right: 14px; }
li { margin: 0.25em 0; }
"""


def _error_bars(
    low: list[float | None] | None, high: list[float | None] | None
) -> dict[str, Any] | None:
    if high is None:
        return None
    return {"type": "data", "symmetric": False, "array": high, "arrayminus": low, "visible": True}


def _trace(kind: FigureKind, series: Series) -> Any:
    common: dict[str, Any] = {
        "name": series.name,
        "legendgroup": series.group or series.name,
        "showlegend": series.show_legend,
    }
    error = _error_bars(series.error_low, series.error_high)
    if kind is FigureKind.LINES:
        # the legend names the group (a cell); the hover names the line (an iteration)
        line = {"color": series.color, "width": 1.6, "dash": "dash" if series.dash else "solid"}
        common["name"] = series.group or series.name
        return go.Scatter(
            x=series.x,
            y=series.y,
            mode="lines",
            line=line,
            hovertemplate=f"{escape(series.name)}<br>%{{x}} s: %{{y}}<extra></extra>",
            **common,
        )
    if kind is FigureKind.SCATTER:
        return go.Scatter(
            x=series.x,
            y=series.y,
            mode="markers",
            marker={"color": series.color, "size": 9},
            error_y=error,
            error_x=_error_bars(series.x_error_low, series.x_error_high),
            **common,
        )
    if kind is FigureKind.BARS:
        return go.Bar(x=series.x, y=series.y, marker_color=series.color, error_y=error, **common)
    if kind is FigureKind.CURVES:
        return go.Scatter(
            x=series.x,
            y=series.y,
            mode="lines+markers",
            line={"color": series.color},
            error_y=error,
            **common,
        )
    return go.Box(
        y=series.y,
        name=series.name,
        text=series.x,
        boxpoints="all",
        jitter=0.3,
        pointpos=0,
        marker_color=series.color,
        hovertemplate="%{text}: %{y}<extra></extra>",
        legendgroup=common["legendgroup"],
        showlegend=series.show_legend,
    )


def _marker_traces(spec: FigureSpec) -> tuple[list[Any], list[dict[str, Any]]]:
    """The markers of a LINES figure as dotted vertical traces spanning the data (hover
    names the trial) and a rotated label at the top of each distinct position."""
    values = [v for s in spec.series for v in s.y if v is not None]
    if not spec.markers or not values:
        return [], []
    low, high = min(values), max(values)
    # one grey legend entry that shows or hides the lines of every cell
    traces: list[Any] = [
        go.Scatter(
            x=[None],
            y=[None],
            mode="lines",
            line={"color": MARKER_LEGEND_COLOR, "width": 1.2, "dash": "dot"},
            name=escape(spec.marker_legend or "markers"),
            legendgroup="markers",
            showlegend=True,
            hoverinfo="skip",
        )
    ]
    annotations: list[dict[str, Any]] = []
    labelled: set[float] = set()
    for marker in spec.markers:
        traces.append(
            go.Scatter(
                x=[marker.x, marker.x],
                y=[low, high],
                mode="lines",
                line={"color": marker.color, "width": 1.2, "dash": "dot"},
                name=escape(spec.marker_legend or "markers"),
                legendgroup="markers",
                showlegend=False,
                hovertemplate=f"{escape(marker.label)}<extra></extra>",
            )
        )
        position = round(marker.x, 0)
        if position not in labelled:
            labelled.add(position)
            annotations.append(
                {
                    "x": marker.x,
                    "y": 1.0,
                    "yref": "paper",
                    "text": escape(marker.text),
                    "showarrow": False,
                    "textangle": -90,
                    "xanchor": "right",
                    "yanchor": "top",
                    "font": {"size": 10, "color": marker.color},
                    "bgcolor": "rgba(255, 255, 255, 0.75)",
                }
            )
    return traces, annotations


def _height(spec: FigureSpec) -> int:
    return GRID_HEIGHT_PX if spec.kind in GRID_KINDS else FIGURE_HEIGHT_PX


def plotly_figure(spec: FigureSpec) -> go.Figure:
    """The plotly figure of a figure specification, drawn with :data:`TEMPLATE` (which
    :func:`figure_div` adds to its JSON: plotly validates a template each time one is set,
    about 10 ms a figure)."""
    markers, labels = _marker_traces(spec) if spec.kind is FigureKind.LINES else ([], [])
    figure = go.Figure([*(_trace(spec.kind, s) for s in spec.series), *markers])
    figure.update_layout(
        annotations=labels,
        title={"text": escape(spec.title)},
        xaxis_title=escape(spec.x_label),
        yaxis_title=escape(spec.y_label),
        height=_height(spec),
        margin={"l": 70, "r": 20, "t": 60, "b": 60},
        legend={"orientation": "v"},
        hovermode="closest",
    )
    if spec.log_y:
        figure.update_yaxes(type="log")
    for band in spec.bands if spec.kind is FigureKind.LINES else []:
        figure.add_vrect(
            x0=band.x0,
            x1=band.x1,
            fillcolor=band.color,
            opacity=BAND_OPACITY,
            line_width=0,
            layer="below",
            annotation_text=escape(band.label),
            annotation_position="top left",
        )
    if spec.kind in GRID_KINDS:
        figure.update_layout(showlegend=False)
    return figure


TEMPLATE = "plotly_white"


@cache
def _template() -> dict[str, Any]:
    """:data:`TEMPLATE` as JSON, validated once."""
    template: dict[str, Any] = plotly.io.templates[TEMPLATE].to_plotly_json()
    return template


def figure_div(spec: FigureSpec) -> str:
    """One figure as a ``<div>`` and its drawing script (plotly.js not included)."""
    drawn = plotly_figure(spec).to_plotly_json()
    drawn["layout"]["template"] = _template()
    body: str = plotly.io.to_html(
        drawn,
        validate=False,
        full_html=False,
        include_plotlyjs=False,
        div_id=f"fig-{spec.id}",
        config=PLOT_CONFIG,
        default_height=f"{_height(spec)}px",
    )
    note = f'<p class="note">{escape(spec.note)}</p>' if spec.note else ""
    return f'<div class="figure" id="figure-{escape(spec.id)}">{body}{note}</div>'


def _linked(text: str, target: str) -> str:
    """A cell's text, as a link to ``target`` (a relative path) when there is one."""
    if not target:
        return escape(text)
    return f'<a href="{escape(quote(target))}">{escape(text)}</a>'


def table_html(table: Table) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    rows = []
    for row in table.rows:
        css = _TONE_CLASS[row.tone]
        attr = f' class="{css}"' if css else ""
        cells = "".join(f"<td>{_linked(c, row.link(i))}</td>" for i, c in enumerate(row.cells))
        rows.append(f"<tr{attr}>{cells}</tr>")
    note = f'<p class="note">{escape(table.note)}</p>' if table.note else ""
    return (
        f'<h3 id="table-{escape(table.id)}">{escape(table.title)}</h3>'
        f'<table class="data"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f"{note}"
    )


def _figures_html(figures: list[FigureSpec]) -> list[str]:
    """Figures in order; consecutive small ones (bars, boxes) share a two-column grid."""
    out: list[str] = []
    grid: list[str] = []
    for figure in figures:
        if figure.kind in GRID_KINDS:
            grid.append(figure_div(figure))
            continue
        if grid:
            out.append('<div class="grid">' + "".join(grid) + "</div>")
            grid = []
        out.append(figure_div(figure))
    if grid:
        out.append('<div class="grid">' + "".join(grid) + "</div>")
    return out


def section_html(section: Section) -> str:
    parts = [f'<section id="{escape(section.id)}"><h2>{escape(section.title)}</h2>']
    parts += [f"<p>{escape(p)}</p>" for p in section.paragraphs]
    if section.bullets:
        parts.append("<ul>" + "".join(f"<li>{escape(b)}</li>" for b in section.bullets) + "</ul>")
    parts += [table_html(t) for t in section.tables]
    parts += _figures_html(section.figures)
    parts.append("</section>")
    return "\n".join(parts)


def render_html(report: Report) -> str:
    """The whole page (see the module docstring)."""
    facts = "".join(
        f"<tr><th>{escape(label)}</th><td>{escape(value)}</td></tr>"
        for label, value in report.facts
    )
    nav = "".join(f'<a href="#{escape(s.id)}">{escape(s.title)}</a>' for s in report.sections)
    body = "\n".join(section_html(s) for s in report.sections)
    plotly_js = plotly.offline.get_plotlyjs()
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(report.title)}</title>"
        f"<style>{STYLE}</style>"
        f'<script type="text/javascript">{plotly_js}</script>'
        "</head><body><main>"
        f"<h1>{escape(report.title)}</h1>"
        f'<table class="facts">{facts}</table>'
        f"<nav>{nav}</nav>\n"
        f"{body}\n"
        f"<script>{RESIZE_JS}</script>"
        "</main></body></html>\n"
    )
