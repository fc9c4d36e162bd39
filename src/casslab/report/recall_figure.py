"""The QPS-against-recall figure of a run with ANN queries (pure): vector search trades
one for the other (a larger ``LIMIT``, a search before the index is compacted, another
index setting), so the report draws each trial as a point at its recall@k and its op rate,
one colour per cell, the recall's 95% CI across the trial's intervals as a horizontal bar.

One figure per operation that counted recall (``ann.recall_at_k`` against
``ann.op_rate``); the run's totals when the trials recorded no operation's recall.
"""

from __future__ import annotations

from collections.abc import Sequence

from casslab.analysis import TrialKpis
from casslab.report.report_document import FigureKind, FigureSpec, Series

SUFFIX = ".recall_at_k"
NOTE = (
    "every point is one trial: its recall@k (mean over its ANN queries) and its op rate; "
    "horizontal bars: the recall's 95% CI across the trial's intervals "
    "(autocorrelation-corrected)"
)


def recall_operations(trials: Sequence[TrialKpis]) -> list[str]:
    """The operations whose recall some trial recorded (``["ann"]``), or ``[""]`` (the
    totals) when only the totals have it, or ``[]``."""
    names = sorted(
        {
            key.removesuffix(SUFFIX)
            for t in trials
            for key, value in t.kpis.items()
            if key.endswith(SUFFIX) and value is not None
        }
    )
    if names:
        return names
    return [""] if any(t.kpis.get("recall_at_k") is not None for t in trials) else []


def _kpi(operation: str, name: str) -> str:
    return f"{operation}.{name}" if operation else name


def _distance(value: float, bound: float | None, below: bool) -> float | None:
    if bound is None:
        return None
    return max(0.0, value - bound) if below else max(0.0, bound - value)


def _cell_series(
    trials: Sequence[TrialKpis], operation: str, cell: str, color: str
) -> Series | None:
    chosen = sorted((t for t in trials if t.cell_id == cell), key=lambda t: t.iteration)
    x: list[float] = []
    y: list[float | None] = []
    low: list[float | None] = []
    high: list[float | None] = []
    for trial in chosen:
        recall = trial.kpis.get(_kpi(operation, "recall_at_k"))
        if recall is None:
            continue
        x.append(recall)
        y.append(trial.kpis.get(_kpi(operation, "op_rate")))
        low.append(_distance(recall, trial.kpis.get(_kpi(operation, "recall_ci_low")), True))
        high.append(_distance(recall, trial.kpis.get(_kpi(operation, "recall_ci_high")), False))
    if not x:
        return None
    return Series(name=cell, x=x, y=y, x_error_low=low, x_error_high=high, color=color, group=cell)


def recall_figures(
    trials: Sequence[TrialKpis], cells: Sequence[str], colors: dict[str, str]
) -> list[FigureSpec]:
    """One QPS-against-recall figure per operation with recall (see the module docstring);
    none for a run without ANN queries."""
    out: list[FigureSpec] = []
    for operation in recall_operations(trials):
        series = [s for cell in cells if (s := _cell_series(trials, operation, cell, colors[cell]))]
        if not series:
            continue
        what = f"{operation} " if operation else ""
        out.append(
            FigureSpec(
                id=f"qps-recall{'-' + operation if operation else ''}",
                kind=FigureKind.SCATTER,
                title=f"{what}op rate against recall@k, per trial",
                x_label="recall@k (share of the k true nearest neighbours found)",
                y_label=f"{_kpi(operation, 'op_rate')} (ops/s)",
                series=series,
                note=NOTE,
            )
        )
    return out
