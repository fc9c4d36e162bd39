"""All KPIs of one trial, over its steady part: :func:`trial_kpis`.

1. **Steady state.** MSER-5 on the measured intervals (:mod:`casslab.analysis.steady`)
   says where the warm-up transient ends; the trial's KPIs cover the *steady part*, from
   that interval on. A trial that is not steady (its series trends, or is too short to
   judge) keeps its whole measured phase, and its :class:`SteadyState` says why.
2. **Engine KPIs** over the steady part: op rate from the interval records, latency
   (mean, p50, p95, p99, p99.9, max) from the trial's HdrHistogram interval log merged over
   the steady intervals (:mod:`casslab.analysis.window`): exact percentiles, not averages
   of per-interval ones. Without the log (or when it does not hold every operation of the
   steady part), the engine KPIs are the engine summary's, over the whole measured phase,
   and :attr:`TrialKpis.window_note` says so. ``errors`` always counts the whole measured
   phase: an operation that failed during the transient is a failure of the configuration,
   never truncated away.
   Recall@k of ANN queries (``recall_at_k``, ``recall_p5``, ``recall_p1``) comes with the
   engine KPIs, over the same window, and its 95% CI across that window's intervals
   (``recall_ci_low`` / ``recall_ci_high``, :mod:`casslab.analysis.recall_ci`).
3. **Metric KPIs** (:func:`casslab.analysis.kpis.kpis_from_metrics`) over the steady part:
   the metrics window starts at ``start`` + the steady-state start.

Pure: records and text in, a :class:`TrialKpis` out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

import pandas as pd

from casslab.analysis.analysis_records import KpiWindow, SteadyState, TrialKpis
from casslab.analysis.kpis import kpis_from_intervals, kpis_from_metrics, kpis_from_summary
from casslab.analysis.metric_rules import METRIC_RULES, MetricRule
from casslab.analysis.recall_ci import recall_ci_kpis
from casslab.analysis.steady import measured_intervals, steady_state
from casslab.analysis.window import window_summary
from casslab.engine_contract.engine_records import IntervalRecord, SummaryRecord
from casslab.engine_contract.hdr import IntervalLog, parse_interval_log
from casslab.errors import AnalysisError

ENGINE_KPIS = (
    "op_rate",
    "errors",
    "latency_mean_ms",
    "latency_p50_ms",
    "latency_p95_ms",
    "latency_p99_ms",
    "latency_p999_ms",
    "latency_max_ms",
)


def _shift(start: float | datetime | None, seconds: float) -> float | datetime | None:
    if start is None:
        return None
    if isinstance(start, datetime):
        return start + timedelta(seconds=seconds)
    return start + seconds


def _is_errors(name: str) -> bool:
    return name == "errors" or name.endswith(".errors")


def _steady_engine_kpis(
    steady_part: Sequence[IntervalRecord],
    hlog: str | IntervalLog | None,
    summary: SummaryRecord | None,
) -> tuple[dict[str, float | None] | None, str | None]:
    """Engine KPIs over the steady part, or ``None`` and why they cover the whole phase."""
    if hlog is None:
        if summary is None:
            # no summary either: the intervals give all but the percentiles, as before
            return kpis_from_intervals(steady_part), None
        return None, (
            "no HdrHistogram log: the engine KPIs cover the whole measured phase (the "
            "engine summary); the metric KPIs cover the steady part"
        )
    try:
        log = parse_interval_log(hlog) if isinstance(hlog, str) else hlog
        window = window_summary(steady_part, log)
    except AnalysisError as error:
        source = "the engine summary" if summary is not None else "its intervals"
        return None, (
            f"{error}; the engine KPIs cover the whole measured phase ({source}), the metric "
            "KPIs the steady part"
        )
    return kpis_from_summary(window), None


def trial_kpis(
    *,
    trial_id: str,
    cell_id: str,
    iteration: int,
    factors: Mapping[str, str],
    summary: SummaryRecord | None = None,
    intervals: Sequence[IntervalRecord] = (),
    metrics: pd.DataFrame | None = None,
    start: float | datetime | None = None,
    end: float | datetime | None = None,
    rules: Sequence[MetricRule] = METRIC_RULES,
    hlog: str | IntervalLog | None = None,
) -> TrialKpis:
    """All KPIs of one trial over its steady part (see the module docstring).

    ``intervals`` are the engine's interval records (warm-up ones are ignored); without
    measured intervals there is no steady state to judge (:attr:`TrialKpis.steady` is
    ``None``) and the KPIs cover the whole measured phase, as the summary gives them.
    ``start`` / ``end`` bound the measured phase in the metrics frame's time unit (Unix
    seconds, or datetimes); ``hlog`` is the text of the trial's ``latency.hlog`` (or the
    parsed log). Without metrics every metric KPI is ``None``.
    """
    measured = measured_intervals(intervals)
    steady: SteadyState | None = steady_state(measured) if measured else None
    truncated = steady is not None and steady.steady and steady.start_index > 0
    whole = kpis_from_summary(summary) if summary is not None else kpis_from_intervals(intervals)
    engine: dict[str, float | None] | None = None
    note: str | None = None
    engine_intervals = measured
    if truncated and steady is not None:
        engine, note = _steady_engine_kpis(measured[steady.start_index :], hlog, summary)
        if engine is not None:
            engine.update({k: v for k, v in whole.items() if _is_errors(k)})
            engine_intervals = measured[steady.start_index :]
    window = KpiWindow.STEADY if steady is not None and steady.steady else KpiWindow.MEASURE
    if engine is None:
        engine = whole
        if truncated:
            window = KpiWindow.MEASURE
    if not engine:
        engine = dict.fromkeys(ENGINE_KPIS)
    engine.update(recall_ci_kpis(engine_intervals))
    metric_start = _shift(start, steady.start_s) if truncated and steady is not None else start
    if metrics is not None:
        resources = kpis_from_metrics(metrics, start=metric_start, end=end, rules=rules)
    else:
        resources = {rule.kpi: None for rule in rules}
    return TrialKpis(
        trial_id=trial_id,
        cell_id=cell_id,
        iteration=iteration,
        factors=dict(factors),
        kpis={**engine, **resources},
        steady=steady,
        engine_window=window,
        window_note=note,
    )
