"""The QPS-against-recall figure from literal trial KPIs, drawn by both renderers."""

from __future__ import annotations

import pytest

from casslab.analysis import TrialKpis
from casslab.report.html import plotly_figure
from casslab.report.png import render_png
from casslab.report.recall_figure import recall_figures, recall_operations
from casslab.report.report_document import FigureKind

COLORS = {"memtable": "#1f77b4", "compacted": "#d62728"}


def _trial(cell: str, iteration: int, kpis: dict[str, float | None]) -> TrialKpis:
    return TrialKpis(
        trial_id=f"{cell}/{iteration}",
        cell_id=cell,
        iteration=iteration,
        factors={"search": cell},
        kpis=kpis,
    )


def _ann(
    recall: float, qps: float, low: float | None, high: float | None
) -> dict[str, float | None]:
    return {
        "op_rate": qps,
        "ann.op_rate": qps,
        "ann.recall_at_k": recall,
        "ann.recall_ci_low": low,
        "ann.recall_ci_high": high,
        "recall_at_k": recall,
    }


TRIALS = [
    _trial("memtable", 1, _ann(0.76, 900.0, 0.70, 0.80)),
    _trial("memtable", 2, _ann(0.78, 880.0, None, None)),  # no CI: a trial of one interval
    _trial("compacted", 1, _ann(0.998, 600.0, 0.996, 1.0)),
]


def test_one_point_per_trial_with_its_recall_ci_as_a_horizontal_bar() -> None:
    (figure,) = recall_figures(TRIALS, ["memtable", "compacted"], COLORS)

    assert figure.kind is FigureKind.SCATTER
    assert figure.id == "qps-recall-ann"
    assert figure.y_label == "ann.op_rate (ops/s)"
    memtable, compacted = figure.series
    assert (memtable.name, memtable.x, memtable.y) == ("memtable", [0.76, 0.78], [900.0, 880.0])
    assert memtable.x_error_low == [pytest.approx(0.06), None]
    assert memtable.x_error_high == [pytest.approx(0.04), None]
    assert compacted.x == [0.998]
    assert compacted.x_error_high == [pytest.approx(0.002)]


def test_totals_when_no_operation_recorded_recall_and_nothing_without_ann_queries() -> None:
    totals = [_trial("memtable", 1, {"op_rate": 500.0, "recall_at_k": 0.9})]
    assert recall_operations(totals) == [""]
    (figure,) = recall_figures(totals, ["memtable"], COLORS)
    assert (figure.id, figure.y_label) == ("qps-recall", "op_rate (ops/s)")

    plain = [_trial("memtable", 1, {"op_rate": 500.0, "latency_p99_ms": 2.0})]
    assert recall_operations(plain) == []
    assert recall_figures(plain, ["memtable"], COLORS) == []


def test_both_renderers_draw_it() -> None:
    (figure,) = recall_figures(TRIALS, ["memtable", "compacted"], COLORS)

    assert render_png(figure).startswith(b"\x89PNG")
    drawn = plotly_figure(figure)
    assert [trace.mode for trace in drawn.data] == ["markers", "markers"]
    assert list(drawn.data[1].error_x.array) == [pytest.approx(0.002)]
