"""The confidence interval of a trial's recall@k across its intervals: the
``recall_ci_low`` / ``recall_ci_high`` KPIs (:mod:`casslab.analysis.kpi_recall`).

Method: the per-interval recall means of the window form a series; its mean ± Student t
(95%, ``n_eff - 1`` degrees of freedom) times ``sd / √n_eff``, with ``n_eff`` the
effective sample size corrected for lag-1 autocorrelation
(:func:`casslab.analysis.autocorr.series_stats`: consecutive intervals share a memtable, a
compaction, an index build). The interval is centred on the mean of the intervals'
recalls, which weighs each interval alike; ``recall_at_k`` is the exact mean over every
query. The bounds are clipped to [0, 1] (a recall is a share). Fewer than two intervals
with ANN queries give no interval (``None``: undetermined); a constant series gives a
zero-width interval at its value.

Pure: interval records in, KPIs out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from casslab.analysis.autocorr import series_stats
from casslab.analysis.stats import t_quantile
from casslab.engine_contract.engine_records import IntervalRecord, OpStats

CONFIDENCE = 0.95


def _recall_mean(stats: OpStats | None) -> float | None:
    return None if stats is None or stats.recall is None else stats.recall.mean


def recall_interval(series: Sequence[float | None]) -> tuple[float | None, float | None]:
    """``(low, high)`` of the module docstring's interval of a per-interval recall series
    (``None`` entries are intervals without ANN queries, left out)."""
    stats = series_stats(series)
    if stats.n < 2 or stats.mean is None or stats.sd is None:
        return None, None
    if stats.sd == 0.0:
        return stats.mean, stats.mean
    half = t_quantile(CONFIDENCE, max(stats.n_effective - 1.0, 1.0)) * stats.sd
    half /= math.sqrt(stats.n_effective)
    return max(0.0, stats.mean - half), min(1.0, stats.mean + half)


def recall_ci_kpis(intervals: Sequence[IntervalRecord]) -> dict[str, float | None]:
    """``recall_ci_low`` / ``recall_ci_high`` in total and per operation
    (``ann.recall_ci_low``) over ``intervals`` (one window of a trial), for the total and
    each operation with recall in some interval; ``{}`` when no interval counted recall."""
    ordered = sorted(intervals, key=lambda i: i.t_start_s)
    out: dict[str, float | None] = {}
    series = [_recall_mean(i.total) for i in ordered]
    if any(v is not None for v in series):
        out["recall_ci_low"], out["recall_ci_high"] = recall_interval(series)
    names = sorted({name for i in ordered for name, s in i.ops.items() if s.recall is not None})
    for name in names:
        low, high = recall_interval([_recall_mean(i.ops.get(name)) for i in ordered])
        out[f"{name}.recall_ci_low"], out[f"{name}.recall_ci_high"] = low, high
    return out
