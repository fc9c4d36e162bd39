"""The figures of ``capacity find`` as PNG bytes (matplotlib's Agg backend, object API only,
as :mod:`casslab.report.png`): the open-loop hockey stick (rate asked against p99, every run
a dot, the SLO a dashed line, the answer and its bracket marked) and the closed-loop ramp
(op rate and p99 per thread count). Pure: records in, bytes out."""

from __future__ import annotations

import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from casslab.capacity.find import FindResult, Verdict, curve
from casslab.capacity.ramp import RampResult

WIDTH_IN = 10.0
HEIGHT_IN = 5.0
DPI = 100
PASS_COLOR = "#2ca02c"
FAIL_COLOR = "#d62728"
LINE_COLOR = "#1f77b4"
SLO_COLOR = "#555555"


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def find_figure(result: FindResult, title: str) -> bytes:
    """Rate asked (ops/s) against p99 (ms, log scale), per run and per rate (median)."""
    figure = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    figure.subplots_adjust(left=0.08, right=0.98, top=0.9, bottom=0.12)
    rows = curve(result.points)
    if rows:
        axes.plot(
            [r[0] for r in rows],
            [r[1] for r in rows],
            color=LINE_COLOR,
            linewidth=1.2,
            label="median p99 per rate",
        )
    for verdict, color, marker in (
        (Verdict.PASS, PASS_COLOR, "o"),
        (Verdict.FAIL, FAIL_COLOR, "x"),
    ):
        runs = [
            (p.probe.rate_asked_per_s, p.probe.p99_ms)
            for p in result.points
            if p.verdict is verdict and p.probe.p99_ms is not None
        ]
        if runs:
            axes.scatter(
                [rate for rate, _ in runs],
                [p99 for _, p99 in runs],
                color=color,
                marker=marker,
                zorder=3,
                s=28,
                label=f"run: {verdict.value}",
            )
    slo = result.settings.p99_slo_ms
    axes.axhline(slo, color=SLO_COLOR, linestyle="--", linewidth=1.0, label=f"SLO p99 {slo:g} ms")
    low, high = result.bracket_low_per_s, result.bracket_high_per_s
    if low is not None:
        axes.axvline(low, color=PASS_COLOR, linestyle=":", linewidth=1.2, label=f"max {low:,.0f}/s")
        if high is not None:
            axes.axvspan(low, high, color=PASS_COLOR, alpha=0.12, label="bracket")
    axes.set_yscale("log")
    axes.yaxis.set_major_formatter(ScalarFormatter())
    axes.yaxis.set_minor_formatter(NullFormatter())
    axes.set_title(title, fontsize=11)
    axes.set_xlabel("rate asked (ops/s, open loop)")
    axes.set_ylabel("p99 response time (ms, from intended start)")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8, loc="upper left")
    return _png(figure)


def ramp_figure(result: RampResult, title: str) -> bytes:
    """Closed loop: op rate (left axis) and p99 (right axis) per thread count."""
    figure = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    figure.subplots_adjust(left=0.09, right=0.91, top=0.9, bottom=0.12)
    threads = [s.threads for s in result.steps]
    axes.plot(threads, [s.op_rate for s in result.steps], color=LINE_COLOR, marker="o")
    axes.set_xscale("log")
    axes.xaxis.set_major_formatter(ScalarFormatter())
    axes.xaxis.set_minor_formatter(NullFormatter())
    axes.set_xticks(threads)
    axes.set_xlabel("threads (closed loop)")
    axes.set_ylabel("op rate (ops/s)", color=LINE_COLOR)
    latency = axes.twinx()
    latency.plot(threads, [s.p99_ms for s in result.steps], color=FAIL_COLOR, marker="x")
    latency.set_ylabel("p99 (ms, service time)", color=FAIL_COLOR)
    if result.p99_slo_ms is not None:
        latency.axhline(result.p99_slo_ms, color=SLO_COLOR, linestyle="--", linewidth=1.0)
    if result.best_threads is not None:
        axes.axvline(result.best_threads, color=PASS_COLOR, linestyle=":", linewidth=1.2)
    axes.set_title(title, fontsize=11)
    axes.grid(True, alpha=0.3)
    return _png(figure)
