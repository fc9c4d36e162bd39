"""Views of a :class:`~casslab.store.run_data.RunData` that only the report needs.

* :func:`run_kpis`: the KPIs the experiment asked for, known names only.
* :func:`metric_series`: one metric of one trial over the measure window, combined over
  nodes.

Cells, per-trial KPIs and the trials and intervals frames are the store's
(:mod:`casslab.analysis.run_frames`): ``casslab.results`` shows the same.
"""

from __future__ import annotations

from casslab.analysis import DEFAULT_KPIS, kpi_spec
from casslab.errors import AnalysisError
from casslab.store.run_data import RunData, TrialData


def run_kpis(run: RunData) -> list[str]:
    """The experiment's KPIs (its ``kpis`` field, else the defaults), known names only."""
    raw = run.manifest.experiment.get("kpis")
    names = [str(k) for k in raw] if isinstance(raw, list) and raw else list(DEFAULT_KPIS)
    out: list[str] = []
    for name in names:
        try:
            kpi_spec(name)
        except AnalysisError:
            continue
        if name not in out:
            out.append(name)
    return out


def metric_series(
    trial: TrialData, metric: str, *, combine: str = "mean", node: str | None = None
) -> tuple[list[float], list[float | None]]:
    """One metric of a trial: seconds since the measure phase began, and values.

    Samples of several nodes at the same second are combined by ``combine`` (``mean`` for
    host metrics a local cluster's nodes share, ``sum`` for per-node Cassandra metrics);
    ``node`` keeps that node's samples only. Only the measure window is kept when the
    trial recorded it.
    """
    frame = trial.metrics
    if frame is None or frame.empty:
        return [], []
    rows = frame[frame["metric"] == metric].dropna(subset=["value"])
    if node is not None:
        rows = rows[rows["node"] == node]
    if rows.empty:
        return [], []
    result = trial.result
    origin = trial.start_unix_s + (result.measure_start_s or 0.0)
    if result.measure_start_s is None:
        origin = float(rows["time"].min())
    seconds = (rows["time"].astype(float) - origin).round()
    if result.measure_start_s is not None:
        keep = seconds >= 0
        if result.measure_end_s is not None:
            keep &= seconds <= result.measure_end_s - result.measure_start_s
        rows, seconds = rows[keep], seconds[keep]
    grouped = rows["value"].astype(float).groupby(seconds)
    combined = grouped.sum() if combine == "sum" else grouped.mean()
    return [float(t) for t in combined.index], [float(v) for v in combined.to_numpy()]


def metric_nodes(trial: TrialData, metric: str) -> list[str]:
    """The nodes with samples of ``metric`` in the trial, in their order of appearance."""
    frame = trial.metrics
    if frame is None or frame.empty:
        return []
    return list(dict.fromkeys(frame.loc[frame["metric"] == metric, "node"].astype(str)))
