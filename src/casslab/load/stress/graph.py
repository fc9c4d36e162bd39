"""``casslab stress -graph file=``: a self-contained HTML page of per-interval op rate and latency.

Pure: records in, HTML out. Like cassandra-stress, several runs ("revisions") share one
file: the page embeds its data as JSON, :func:`revisions_from_html` reads it back, and the
caller appends the new revision and renders again. Charts are inline SVG (no scripts, no
network), so the file opens anywhere, offline.
"""

from __future__ import annotations

import html
import re

from pydantic import Field, ValidationError

from casslab.engine_contract.engine_records import IntervalRecord
from casslab.record import Record

_DATA_ID = "casslab-stress-graph"
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
_METRICS = (
    ("op_rate", "Operations per second", "op/s"),
    ("mean_ms", "Latency mean", "ms"),
    ("p99_ms", "Latency p99", "ms"),
    ("p999_ms", "Latency p99.9", "ms"),
)


class GraphRevision(Record):
    """One run's series: interval end time (s) and the measured values."""

    revision: str
    command: str = ""
    t_s: list[float] = Field(default_factory=list)
    op_rate: list[float] = Field(default_factory=list)
    mean_ms: list[float] = Field(default_factory=list)
    p99_ms: list[float] = Field(default_factory=list)
    p999_ms: list[float] = Field(default_factory=list)


class GraphFile(Record):
    schema_version: int = 1
    title: str
    revisions: list[GraphRevision] = Field(default_factory=list)


def revision_from_intervals(
    revision: str, intervals: list[IntervalRecord], command: str = ""
) -> GraphRevision:
    measured = [r for r in intervals if r.phase != "warmup"]
    return GraphRevision(
        revision=revision,
        command=command,
        t_s=[r.t_end_s for r in measured],
        op_rate=[r.total.op_rate for r in measured],
        mean_ms=[r.total.response.mean_ms for r in measured],
        p99_ms=[r.total.response.p99_ms for r in measured],
        p999_ms=[r.total.response.p999_ms for r in measured],
    )


def revisions_from_html(text: str) -> GraphFile | None:
    """The data embedded in a page this module wrote, or None for any other file."""
    match = re.search(
        rf'<script type="application/json" id="{_DATA_ID}">(.*?)</script>', text, re.S
    )
    if match is None:
        return None
    try:
        return GraphFile.model_validate_json(match.group(1).replace("<\\/", "</"))
    except ValidationError:
        return None


def add_revision(existing: GraphFile | None, title: str, revision: GraphRevision) -> GraphFile:
    """Append (or replace, same name) a revision; the first title given is kept."""
    if existing is None:
        return GraphFile(title=title, revisions=[revision])
    kept = [r for r in existing.revisions if r.revision != revision.revision]
    return GraphFile(title=existing.title, revisions=[*kept, revision])


def _chart(graph: GraphFile, attr: str, label: str, unit: str) -> str:
    width, height, left, bottom, top, right = 720, 260, 60, 30, 20, 10
    series = [(r.revision, r.t_s, getattr(r, attr)) for r in graph.revisions]
    xs = [x for _, t, _ in series for x in t] or [1.0]
    ys = [y for _, _, v in series for y in v] or [1.0]
    x_max = max(max(xs), 1e-9)
    y_max = max(max(ys), 1e-9) * 1.05
    plot_w, plot_h = width - left - right, height - top - bottom

    def point(x: float, y: float) -> str:
        return f"{left + x / x_max * plot_w:.1f},{top + plot_h - y / y_max * plot_h:.1f}"

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{html.escape(label)}">',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'stroke="#444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#444"/>',
    ]
    for i in range(5):
        value = y_max * i / 4
        y = top + plot_h - plot_h * i / 4
        parts.append(
            f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" font-size="10">'
            f"{value:,.1f}</text>"
        )
    parts.append(
        f'<text x="{left + plot_w}" y="{height - 4}" text-anchor="end" font-size="10">'
        f"time {x_max:,.0f} s</text>"
    )
    for index, (_, t_s, values) in enumerate(series):
        colour = _COLOURS[index % len(_COLOURS)]
        points = " ".join(point(x, y) for x, y in zip(t_s, values, strict=False))
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"/>'
        )
    parts.append("</svg>")
    return f"<h2>{html.escape(label)} ({unit})</h2>\n" + "".join(parts)


def render_graph_html(graph: GraphFile) -> str:
    """The whole page: legend, four charts, a summary table and the embedded data."""
    data = graph.model_dump_json().replace("</", "<\\/")
    legend = "".join(
        f'<li><span style="color:{_COLOURS[i % len(_COLOURS)]}">&#9632;</span> '
        f"{html.escape(r.revision)} <code>{html.escape(r.command)}</code></li>"
        for i, r in enumerate(graph.revisions)
    )
    rows = "".join(
        f"<tr><td>{html.escape(r.revision)}</td><td>{len(r.t_s)}</td>"
        f"<td>{(sum(r.op_rate) / len(r.op_rate) if r.op_rate else 0):,.0f}</td>"
        f"<td>{max(r.p99_ms, default=0):.1f}</td></tr>"
        for r in graph.revisions
    )
    charts = "\n".join(_chart(graph, attr, label, unit) for attr, label, unit in _METRICS)
    title = html.escape(graph.title)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{title}</title>"
        "<style>body{font-family:sans-serif;margin:1em 2em}td,th{padding:2px 8px}</style>"
        f"</head><body>\n<h1>{title}</h1>\n<ul>{legend}</ul>\n"
        "<table><tr><th>revision</th><th>intervals</th><th>mean op/s</th>"
        f"<th>max p99 ms</th></tr>{rows}</table>\n{charts}\n"
        f'<script type="application/json" id="{_DATA_ID}">{data}</script>\n'
        "</body></html>\n"
    )
