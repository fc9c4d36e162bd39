"""Recall@k as a KPI of a trial, from literal engine records: its mean and percentiles from
the engine's per-query counts, merged over intervals and windows, and its 95% CI across
intervals (numbers worked out by hand in the comments)."""

from __future__ import annotations

import pytest

from casslab.analysis import (
    interval_series,
    kpi_spec,
    kpis_from_intervals,
    kpis_from_summary,
    trial_kpis,
)
from casslab.analysis.kpi_record import Direction
from casslab.analysis.recall_ci import recall_ci_kpis, recall_interval
from casslab.analysis.window import window_summary
from casslab.engine_contract.engine_records import (
    IntervalRecord,
    LatencyStats,
    OpStats,
    SummaryRecord,
)
from casslab.engine_contract.hdr import parse_interval_log
from casslab.engine_contract.recall import recall_stats
from hdr_literals import log_text

BUCKET = 1000  # HDR bucket of every operation: 0.512 .. 0.512511 ms
HIGH_MS = (BUCKET * 512 + 511) / 1e6


def _latency(count: int) -> LatencyStats:
    return LatencyStats(
        count=count,
        mean_ms=HIGH_MS,
        p50_ms=HIGH_MS,
        p95_ms=HIGH_MS,
        p99_ms=HIGH_MS,
        p999_ms=HIGH_MS,
        max_ms=HIGH_MS,
    )


def _op(count: int, by_hits: list[int] | None = None) -> OpStats:
    return OpStats(
        count=count,
        errors=0,
        op_rate=float(count),
        response=_latency(count),
        service=_latency(count),
        recall=None if by_hits is None else recall_stats(by_hits),
    )


def _hits(k: int, found: int, queries: int) -> list[int]:
    """``queries`` queries of recall@``k`` that each found ``found`` true neighbours."""
    return [queries if h == found else 0 for h in range(k + 1)]


def _interval(t0: float, by_hits: list[int] | None, writes: int = 50) -> IntervalRecord:
    queries = sum(by_hits) if by_hits is not None else 0
    return IntervalRecord(
        t_start_s=t0,
        t_end_s=t0 + 1.0,
        threads=4,
        total=_op(queries + writes, by_hits),
        ops={"ann": _op(queries, by_hits), "insert": _op(writes)},
    )


def test_summary_recall_kpis_total_and_per_operation() -> None:
    # k = 2: 1 query found 1 neighbour, 3 found both: mean 7/8, p5 = p1 = 1/2
    ann = _op(4, [0, 1, 3])
    summary = SummaryRecord(
        duration_s=1.0, total=ann, ops={"ann": ann, "insert": _op(10)}, engine_version="t"
    )

    kpis = kpis_from_summary(summary)

    assert kpis["recall_at_k"] == pytest.approx(7 / 8)
    assert (kpis["recall_p5"], kpis["recall_p1"]) == (0.5, 0.5)
    assert kpis["ann.recall_at_k"] == pytest.approx(7 / 8)
    assert "insert.recall_at_k" not in kpis  # writes count no recall: no KPI, not 0


def test_intervals_merge_recall_by_summing_queries_by_hits() -> None:
    # [0, 1, 3] and [1, 0, 5]: 10 queries found 17 of 20 neighbours; 1 found none: p5 = 0
    intervals = [_interval(0.0, [0, 1, 3]), _interval(1.0, [1, 0, 5])]

    kpis = kpis_from_intervals(intervals)

    assert kpis["ann.recall_at_k"] == pytest.approx(17 / 20)
    assert kpis["recall_at_k"] == pytest.approx(17 / 20)
    assert (kpis["ann.recall_p5"], kpis["ann.recall_p1"]) == (0.0, 0.0)
    assert interval_series(intervals, "ann.recall_at_k") == [pytest.approx(7 / 8), 5 / 6]
    assert interval_series(intervals, "insert.recall_at_k") == [None, None]


def test_a_window_summary_keeps_the_recall_of_its_intervals() -> None:
    intervals = [_interval(0.0, [0, 1, 3]), _interval(1.0, [1, 0, 5]), _interval(2.0, [0, 0, 9])]
    lines = []
    for i in intervals[1:]:
        for name, stats in i.ops.items():
            lines.append((name, i.t_start_s, 1.0, {BUCKET: stats.count}))
            lines.append((f"{name}.service", i.t_start_s, 1.0, {BUCKET: stats.count}))

    window = window_summary(intervals[1:], parse_interval_log(log_text(lines)))

    recall = window.ops["ann"].recall
    assert recall is not None
    assert recall.queries_by_hits == [1, 0, 14]  # the last two intervals only
    assert recall.mean == pytest.approx(28 / 30)
    assert window.total.recall == recall
    assert window.ops["insert"].recall is None


@pytest.mark.parametrize(
    ("series", "low", "high"),
    [
        # alternating: r1 < 0 does not inflate n, n_eff = 4; mean 0.85, sd = sqrt(0.01/3) =
        # 0.057735, se = 0.028868, t(0.975, 3) = 3.182446: half-width 0.091869
        ([0.9, 0.8, 0.9, 0.8], 0.758131, 0.941869),
        # a gap (no ANN query in an interval) is left out, not a recall of 0
        ([0.9, None, 0.8, 0.9, 0.8], 0.758131, 0.941869),
        # trending: r1 = 0.02 / 0.04 = 0.5, n_eff = 6 · 0.5 / 1.5 = 2; sd = sqrt(0.04/5) =
        # 0.089443, se = 0.063246, t(0.975, 1) = 12.7062: 0.8 ± 0.8036, clipped to [0, 1]
        ([0.7, 0.7, 0.8, 0.8, 0.9, 0.9], 0.0, 1.0),
        ([0.95, 0.95, 0.95], 0.95, 0.95),  # constant: a zero-width interval
        ([0.95], None, None),  # one interval: undetermined
        ([None, None], None, None),
    ],
)
def test_recall_interval_by_hand(
    series: list[float | None], low: float | None, high: float | None
) -> None:
    got_low, got_high = recall_interval(series)
    assert got_low == (None if low is None else pytest.approx(low, abs=1e-5))
    assert got_high == (None if high is None else pytest.approx(high, abs=1e-5))


def test_a_trials_kpis_carry_recall_and_its_ci_across_intervals() -> None:
    # 12 steady intervals of 100 ANN queries at k = 10, found 9 / 8 / 9 / 8 ...: mean 0.85;
    # r1 < 0, n_eff = 12, sd = sqrt(12 · 0.0025 / 11) = 0.052223, se = 0.015076,
    # t(0.975, 11) = 2.200985: half-width 0.033182
    intervals = [_interval(float(i), _hits(10, 9 if i % 2 == 0 else 8, 100)) for i in range(12)]
    merged = _op(1200, [0] * 8 + [600, 600, 0])
    summary = SummaryRecord(
        duration_s=12.0,
        total=merged,
        ops={"ann": merged, "insert": _op(600)},
        engine_version="t",
    )

    result = trial_kpis(
        trial_id="c/1",
        cell_id="c",
        iteration=1,
        factors={"index": "sai"},
        summary=summary,
        intervals=intervals,
    )

    k = result.kpis
    assert k["ann.recall_at_k"] == pytest.approx(0.85)
    assert k["ann.recall_p5"] == 0.8
    assert k["ann.recall_ci_low"] == pytest.approx(0.85 - 0.033182, abs=1e-5)
    assert k["ann.recall_ci_high"] == pytest.approx(0.85 + 0.033182, abs=1e-5)
    assert k["recall_ci_low"] == k["ann.recall_ci_low"]
    assert "insert.recall_ci_low" not in k


def test_recall_ci_kpis_of_a_workload_without_ann_queries_are_none_at_all() -> None:
    assert recall_ci_kpis([_interval(0.0, None), _interval(1.0, None)]) == {}


def test_recall_is_a_kpi_where_higher_is_better_and_its_bounds_are_not_goals() -> None:
    assert kpi_spec("recall_at_k").direction is Direction.HIGHER_IS_BETTER
    assert kpi_spec("ann.recall_p5").direction is Direction.HIGHER_IS_BETTER
    assert kpi_spec("ann.recall_ci_low").direction is Direction.NEUTRAL
    assert kpi_spec("recall_at_k").unit == "share"


def _loading(t0: float, by_hits: list[int] | None, unjudged: int) -> IntervalRecord:
    """An interval of a search while loading: ``unjudged`` more ANN queries ran that
    could not be judged (not in ``by_hits``)."""
    interval = _interval(t0, by_hits)
    ann = interval.ops["ann"].model_copy(update={"recall_unjudged": unjudged})
    total = interval.total.model_copy(update={"recall_unjudged": unjudged})
    return interval.model_copy(update={"ops": {**interval.ops, "ann": ann}, "total": total})


def test_unjudged_queries_are_a_kpi_per_interval_and_per_trial() -> None:
    # the first interval judged none of its queries (no recall), the next judged 4 of 6
    intervals = [_loading(0.0, None, 5), _loading(1.0, [0, 1, 3], 2), _loading(2.0, [0, 0, 6], 0)]

    kpis = kpis_from_intervals(intervals)

    assert kpis["recall_unjudged"] == 7.0
    assert kpis["ann.recall_unjudged"] == 7.0
    assert kpis["ann.recall_at_k"] == pytest.approx(19 / 20)  # the judged queries only
    assert "insert.recall_unjudged" not in kpis  # writes search nothing: no KPI, not 0
    assert interval_series(intervals, "ann.recall_unjudged") == [5.0, 2.0, 0.0]
    assert interval_series(intervals, "ann.recall_at_k")[0] is None
    assert kpi_spec("recall_unjudged").direction is Direction.NEUTRAL


def test_a_search_that_judged_every_query_counts_0_unjudged() -> None:
    ann = _op(4, [0, 1, 3])
    summary = SummaryRecord(
        duration_s=1.0, total=ann, ops={"ann": ann, "insert": _op(10)}, engine_version="t"
    )

    kpis = kpis_from_summary(summary)

    assert kpis["ann.recall_unjudged"] == 0.0
    assert "insert.recall_unjudged" not in kpis


def test_a_window_summary_keeps_the_unjudged_queries_of_its_intervals() -> None:
    intervals = [_loading(0.0, [0, 1, 3], 5), _loading(1.0, [1, 0, 5], 2)]
    lines = []
    for i in intervals[1:]:
        for name, stats in i.ops.items():
            lines.append((name, i.t_start_s, 1.0, {BUCKET: stats.count}))
            lines.append((f"{name}.service", i.t_start_s, 1.0, {BUCKET: stats.count}))

    window = window_summary(intervals[1:], parse_interval_log(log_text(lines)))

    assert window.ops["ann"].recall_unjudged == 2  # the last interval only
    assert window.total.recall_unjudged == 2
