"""Pure views of a :class:`~casslab.store.run_data.RunData`: cells, KPIs and pandas frames.

* :func:`cell_layout`: the cells in design order and the baseline cell, from the run's
  plan (``plan.json``); without a plan (a run written before plan.json existed), cells in
  sorted order and the first as baseline, and a note saying so.
* :func:`trial_kpis_of`: a trial's KPIs as :class:`~casslab.analysis.TrialKpis`, from its
  ``summary.json``; when the runner recorded none, computed from the engine summary,
  intervals and metrics (:func:`casslab.analysis.trial_kpis`).
* :func:`trial_steadiness`: where a trial's steady part began and whether it was steady
  (MSER-5, :mod:`casslab.analysis.steady`), as its ``summary.json`` recorded it.
* :func:`trials_frame`: one row per trial (``trial_id, cell_id, iteration, order_index,
  status, error, started_at, ended_at, steady_start_s, steady``, one column per factor,
  one per KPI).
* :func:`intervals_frame`: one row per measured engine interval of every trial.

The KPIs of a trial read back are the same rule the runner used (:mod:`.trial`), not
written twice; the report, capacity's throughput table and :mod:`casslab.results` read
runs through here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from casslab.analysis import TrialKpis, interval_series, kpi_spec, steady_state, trial_kpis
from casslab.analysis.trial import ENGINE_KPIS
from casslab.errors import AnalysisError
from casslab.record import Record
from casslab.store.run_data import RunData, TrialData
from casslab.store.run_records import TrialStatus

INTERVAL_KPIS = ENGINE_KPIS  # the engine reports each of them per interval too


class CellLayout(Record):
    cells: list[str]  # design order, then cells found only in the trials
    baseline_cell: str | None
    factors: list[str]
    note: str = ""  # where the layout came from, when not from plan.json


def cell_layout(run: RunData) -> CellLayout:
    """Cells in design order and the baseline cell (see the module docstring)."""
    found = sorted({t.result.cell_id for t in run.trials})
    plan = run.plan
    if plan is None:
        factors = sorted({name for t in run.trials for name in t.result.factors})
        first = found[0] if found else None
        return CellLayout(
            cells=found,
            baseline_cell=first if len(found) > 1 else None,
            factors=factors,
            note=(
                f"{run.plan_note or 'the run has no plan'}; cells are in sorted order and "
                f"{first or 'none'!r} is taken as the baseline"
            ),
        )
    ordered = [c.id for c in plan.cells]
    ordered += [c for c in found if c not in ordered]
    baseline: str | None = plan.baseline_cell_id
    notes = [run.plan_note] if run.plan_note else []
    if baseline is not None and baseline not in found and len(found) > 1:
        notes.append(f"the baseline cell {baseline!r} has no finished trial: no comparisons")
        baseline = None
    return CellLayout(
        cells=ordered,
        baseline_cell=baseline if len(found) > 1 else None,
        factors=list(plan.factors),
        note="; ".join(notes),
    )


def _clean_kpis(kpis: dict[str, float | None]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for name, value in kpis.items():
        try:
            kpi_spec(name)
        except AnalysisError:
            continue
        out[name] = value if value is None or math.isfinite(value) else None
    return out


def trial_kpis_of(trial: TrialData) -> TrialKpis:
    """The KPIs of one trial (see the module docstring)."""
    result = trial.result
    kpis = _clean_kpis(dict(result.kpis))
    if not kpis:
        start: float | None = None
        end: float | None = None
        if result.measure_start_s is not None:
            start = trial.start_unix_s + result.measure_start_s
        if result.measure_end_s is not None:
            end = trial.start_unix_s + result.measure_end_s
        kpis = trial_kpis(
            trial_id=result.trial_id,
            cell_id=result.cell_id,
            iteration=result.iteration,
            factors=result.factors,
            summary=result.engine or trial.engine_summary,
            intervals=trial.intervals,
            metrics=trial.metrics,
            start=start,
            end=end,
        ).kpis
    return TrialKpis(
        trial_id=result.trial_id,
        cell_id=result.cell_id,
        iteration=max(0, result.iteration),
        factors=dict(result.factors),
        kpis=_clean_kpis(kpis),
    )


class TrialSteadiness(Record):
    """A trial's steady state as the report shows it: ``start_s`` seconds into the measured
    phase; a trial that is not ``steady`` has its KPIs over the whole phase (``reason``)."""

    steady: bool
    start_s: float
    reason: str | None = None


def trial_steadiness(trial: TrialData) -> TrialSteadiness | None:
    """The steady state recorded in the trial's ``summary.json``; for a trial whose KPIs
    were not recorded (and are computed now, :func:`trial_kpis_of`), the one computed from
    its intervals; ``None`` when neither (a trial of an older casslab, whose KPIs cover the
    whole measured phase, one without measured intervals, or a failed trial)."""
    result = trial.result
    if result.status is not TrialStatus.OK:
        return None
    if result.steady is not None:
        return TrialSteadiness(
            steady=result.steady,
            start_s=result.steady_start_s or 0.0,
            reason=result.steady_reason,
        )
    if _clean_kpis(dict(result.kpis)):
        return None
    found = steady_state(trial.intervals)
    if found is None:
        return None
    return TrialSteadiness(steady=found.steady, start_s=found.start_s, reason=found.reason)


def analysed_trials(run: RunData) -> list[TrialKpis]:
    """KPIs of the trials that finished (status ok); failed trials are left out."""
    return [trial_kpis_of(t) for t in run.trials if t.result.status is TrialStatus.OK]


def trials_frame(run: RunData) -> pd.DataFrame:
    """One row per trial, every trial (failed ones too, with their ``error``)."""
    layout = cell_layout(run)
    factor_names = list(layout.factors)
    for trial in run.trials:
        factor_names += [f for f in trial.result.factors if f not in factor_names]
    rows: list[dict[str, object]] = []
    kpi_names: list[str] = []
    for trial in run.trials:
        kpis = trial_kpis_of(trial).kpis
        kpi_names += [k for k in kpis if k not in kpi_names]
        result = trial.result
        row: dict[str, object] = {
            "trial_id": result.trial_id,
            "cell_id": result.cell_id,
            "iteration": result.iteration,
            "order_index": result.order_index,
            "status": result.status.value,
            "error": result.error,
            "started_at": result.started_at,
            "ended_at": result.ended_at,
        }
        steadiness = trial_steadiness(trial)
        row["steady_start_s"] = steadiness.start_s if steadiness is not None else None
        row["steady"] = steadiness.steady if steadiness is not None else None
        row["cassandra_version"] = result.cassandra_version
        row["java_feature"] = result.java_feature
        row["jdk"] = result.jdk
        row["gc"] = result.gc
        row.update({name: result.factors.get(name) for name in factor_names})
        row.update(kpis)
        rows.append(row)
    fixed = ["trial_id", "cell_id", "iteration", "order_index", "status", "error"]
    fixed += ["started_at", "ended_at", "steady_start_s", "steady"]
    fixed += ["cassandra_version", "java_feature", "jdk", "gc"]  # what the trial's nodes ran
    columns = [*fixed, *factor_names, *_kpi_order(kpi_names)]
    frame = pd.DataFrame(rows, columns=columns)
    for name in kpi_names:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("float64")
    for name in ("status", "trial_id", "cell_id", *factor_names):
        frame[name] = frame[name].astype("string")
    frame["error"] = frame["error"].astype("string")
    frame["cassandra_version"] = frame["cassandra_version"].astype("string")
    frame["gc"] = frame["gc"].astype("string")
    frame["jdk"] = frame["jdk"].astype("string")
    frame["java_feature"] = frame["java_feature"].astype("Int64")
    frame["steady_start_s"] = pd.to_numeric(frame["steady_start_s"]).astype("float64")
    frame["steady"] = frame["steady"].astype("boolean")
    frame["iteration"] = frame["iteration"].astype("int64")
    frame["order_index"] = frame["order_index"].astype("int64")
    return frame


def _kpi_order(names: Sequence[str]) -> list[str]:
    """Total KPIs first, in catalogue order of the names given, then per-operation ones."""
    total = [n for n in names if "." not in n]
    per_op = sorted(n for n in names if "." in n)
    return [*total, *per_op]


def measure_intervals(trial: TrialData) -> tuple[list[float], float | None]:
    """Seconds since the measure phase began, at the end of each measured interval."""
    measured = sorted(
        (i for i in trial.intervals if i.phase == "measure"), key=lambda i: i.t_start_s
    )
    if not measured:
        return [], None
    origin = measured[0].t_start_s
    return [i.t_end_s - origin for i in measured], origin


def intervals_frame(run: RunData) -> pd.DataFrame:
    """One row per measured interval: trial_id, cell_id, iteration, t_s and the KPIs."""
    rows: list[dict[str, object]] = []
    for trial in run.trials:
        times, _origin = measure_intervals(trial)
        if not times:
            continue
        columns = {kpi: interval_series(trial.intervals, kpi) for kpi in INTERVAL_KPIS}
        for index, t_s in enumerate(times):
            row: dict[str, object] = {
                "trial_id": trial.result.trial_id,
                "cell_id": trial.result.cell_id,
                "iteration": trial.result.iteration,
                "t_s": t_s,
            }
            row.update({kpi: values[index] for kpi, values in columns.items()})
            rows.append(row)
    frame = pd.DataFrame(rows, columns=["trial_id", "cell_id", "iteration", "t_s", *INTERVAL_KPIS])
    for kpi in ("t_s", *INTERVAL_KPIS):
        frame[kpi] = pd.to_numeric(frame[kpi], errors="coerce").astype("float64")
    return frame
