"""MSER-5 steady-state detection on small synthetic series worked out by hand."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from casslab.analysis.steady import (
    batch_means,
    detect_steady_state,
    mser_statistics,
    mser_truncation,
    steady_state,
)
from casslab.engine_contract.engine_records import IntervalRecord, LatencyStats, OpStats
from casslab.errors import AnalysisError


def _noise(n: int, scale: float, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [rng.gauss(0.0, scale) for _ in range(n)]


def ramp(n: int, end: int, low: float, high: float, seed: int = 1) -> list[float]:
    """Rises linearly from ``low`` to ``high`` over the first ``end`` intervals, then flat,
    with N(0, 2% of high) noise throughout."""
    noise = _noise(n, 0.02 * high, seed)
    return [low + (high - low) * min(1.0, i / end) + noise[i] for i in range(n)]


def stationary(n: int, level: float, seed: int = 1) -> list[float]:
    return [level + e for e in _noise(n, 0.02 * level, seed)]


def trend(n: int, low: float, high: float, seed: int = 1) -> list[float]:
    noise = _noise(n, 0.01 * high, seed)
    return [low + (high - low) * i / (n - 1) + noise[i] for i in range(n)]


def seconds(n: int) -> list[float]:
    return [float(i) for i in range(n)]


# ---------------------------------------------------------------- the statistic


@pytest.mark.parametrize(
    ("values", "size", "means"),
    [
        ([1, 2, 3, 4, 5, 6, 7], 5, [3.0]),  # the incomplete last batch is left out
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5, [3.0, 8.0]),
        ([1, None, 3, None, 5], 5, [3.0]),  # a missing value is left out of its batch
        ([None, None, 1, 1], 2, [None, 1.0]),  # a batch with no value is None
        ([], 5, []),
    ],
)
def test_batch_means(values: list[float | None], size: int, means: list[float | None]) -> None:
    assert batch_means(values, size) == means


def test_mser_statistic_by_hand() -> None:
    # batch means 3,1,1,1,1,1: d=0 keeps all six (mean 4/3, SS = (5/3)² + 5·(1/3)² = 10/3),
    # MSER(0) = (10/3)/36; d=1 keeps five ones, MSER(1) = 0
    assert mser_statistics([3, 1, 1, 1, 1, 1], 1) == pytest.approx([10 / 3 / 36, 0.0])
    # 1,2,3 with d up to 1: SS(0) = 2 over 9; SS(1) = 0.5 over 4
    assert mser_statistics([1, 2, 3], 1) == pytest.approx([2 / 9, 0.5 / 4])
    with pytest.raises(AnalysisError, match="leaves none"):
        mser_statistics([1, 2], 2)


def test_a_constant_series_is_not_truncated() -> None:
    truncation = mser_truncation([5.0] * 60)

    assert truncation is not None
    assert truncation.statistics == (0.0,) * 7  # d = 0 .. 12 // 2, exact zeros
    assert (truncation.d_star, truncation.start_index, truncation.first_half) == (0, 0, True)


def test_a_short_series_or_one_with_an_empty_batch_has_no_truncation() -> None:
    assert mser_truncation([1.0] * 49) is None
    assert mser_truncation([1.0] * 50) is not None
    assert mser_truncation([None] * 5 + [1.0] * 55) is None


# ---------------------------------------------------------------- the verdict


@pytest.mark.parametrize("end", [20, 35])
def test_a_clear_ramp_is_truncated_near_its_end(end: int) -> None:
    # MSER never keeps the transient in; on the noise after it, it may cut a little late
    n = 150
    states = [
        detect_steady_state(
            {
                "op_rate": ramp(n, end, 400.0, 1000.0, seed),
                "latency_mean_ms": ramp(n, end, 8.0, 2.0, seed + 100),
            },
            seconds(n),
        )
        for seed in range(40)
    ]

    starts = [s.start_index for s in states if s.steady]
    assert len(starts) >= 36
    assert min(starts) >= end - 5  # at most one batch of the ramp is kept
    assert statistics.median(starts) <= end + 5  # typically at the ramp's end
    first = states[0]
    assert first.reason is None
    assert first.start_s == float(first.start_index)
    assert first.n_intervals == n
    assert first.method == "MSER-5"


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_stationary_series_is_truncated_at_0_or_near(seed: int) -> None:
    n = 120
    series = {
        "op_rate": stationary(n, 1000.0, seed),
        "latency_mean_ms": stationary(n, 2.0, seed + 100),
    }

    state = detect_steady_state(series, seconds(n))

    assert state.steady
    assert state.start_index <= 10


@pytest.mark.parametrize("n", [60, 120, 300])
def test_a_series_that_trends_throughout_is_not_steady(n: int) -> None:
    series = {"op_rate": trend(n, 500.0, 1000.0), "latency_mean_ms": stationary(n, 2.0)}

    state = detect_steady_state(series, seconds(n))

    assert not state.steady
    assert (state.start_index, state.start_s) == (0, 0.0)  # the KPIs keep the whole phase
    assert state.reason is not None
    assert state.reason.startswith(
        "trends throughout: MSER-5 finds no end of the transient in the first half"
    )
    assert f"op_rate at {n // 2} s ({n // 2} of {n} intervals)" in state.reason
    assert "latency_mean_ms" not in state.reason
    assert state.truncations["op_rate"] == n // 2  # MSER's point at the half, for the record


@pytest.mark.parametrize(("n", "batches"), [(0, 0), (30, 6), (49, 9)])
def test_a_series_too_short_to_judge_is_not_steady(n: int, batches: int) -> None:
    state = detect_steady_state({"op_rate": stationary(n, 1000.0)}, seconds(n))

    assert not state.steady
    assert state.reason is not None
    assert state.reason.startswith(
        f"too short to judge: {n} measured intervals make {batches} batches of 5; MSER-5 "
        "needs at least 10 batches (50 intervals)"
    )
    assert state.truncations == {}


def test_the_later_truncation_of_the_two_series_wins() -> None:
    n = 150
    series = {
        "op_rate": ramp(n, 10, 400.0, 1000.0, 7),
        "latency_mean_ms": ramp(n, 40, 8.0, 2.0, 8),
    }

    state = detect_steady_state(series, seconds(n))

    assert state.truncations["op_rate"] < state.truncations["latency_mean_ms"]
    assert state.start_index == state.truncations["latency_mean_ms"]


def test_a_series_with_an_empty_batch_leaves_the_decision_to_the_other() -> None:
    n = 100
    latency: list[float | None] = [None] * 5 + stationary(n - 5, 2.0)
    state = detect_steady_state(
        {"op_rate": ramp(n, 20, 400.0, 1000.0), "latency_mean_ms": latency}, seconds(n)
    )

    assert state.steady
    assert set(state.truncations) == {"op_rate"}
    nothing = detect_steady_state({"latency_mean_ms": [None] * n}, seconds(n))
    assert not nothing.steady
    assert nothing.reason is not None
    assert nothing.reason.startswith("no series to judge")


def test_bad_arguments_are_analysis_errors() -> None:
    with pytest.raises(AnalysisError, match="has 3 values for 4 intervals"):
        detect_steady_state({"op_rate": [1.0, 2.0, 3.0]}, seconds(4))
    with pytest.raises(AnalysisError, match="min_batches 3 is below 4"):
        detect_steady_state({"op_rate": [1.0] * 60}, seconds(60), min_batches=3)
    with pytest.raises(AnalysisError, match="batch size 0"):
        batch_means([1.0], 0)


# ---------------------------------------------------------------- from interval records


def _op(rate: float, latency: float | None) -> OpStats:
    count = 0 if latency is None else int(rate)
    stats = LatencyStats(
        count=count,
        mean_ms=latency or 0.0,
        p50_ms=latency or 0.0,
        p95_ms=2 * (latency or 0.0),
        p99_ms=3 * (latency or 0.0),
        p999_ms=4 * (latency or 0.0),
        max_ms=5 * (latency or 0.0),
    )
    return OpStats(count=count, errors=0, op_rate=rate, response=stats, service=stats)


def records(rates: list[float], latencies: list[float], *, warmup: int = 3) -> list[IntervalRecord]:
    """``warmup`` warm-up intervals, then one measured interval per rate, 1.01 s each."""
    out = [
        IntervalRecord(
            phase="warmup",
            t_start_s=i * 1.01,
            t_end_s=(i + 1) * 1.01,
            threads=8,
            total=_op(10.0, 50.0),
            ops={},
        )
        for i in range(warmup)
    ]
    for i, (rate, latency) in enumerate(zip(rates, latencies, strict=True)):
        start = (warmup + i) * 1.01
        out.append(
            IntervalRecord(
                t_start_s=start, t_end_s=start + 1.01, threads=8, total=_op(rate, latency), ops={}
            )
        )
    return out


def test_steady_state_of_interval_records() -> None:
    n = 100
    intervals = records(ramp(n, 20, 400.0, 1000.0), ramp(n, 20, 8.0, 2.0, 5))

    state = steady_state(list(reversed(intervals)))  # time order is restored

    assert state is not None
    assert state.steady
    assert state.n_intervals == n  # warm-up intervals are not judged
    assert state.start_s == pytest.approx(1.01 * state.start_index)
    assert 15 <= state.start_index <= 30
    assert steady_state(intervals[:3]) is None  # warm-up only: nothing to judge


def test_steady_state_of_other_series_and_unknown_ones() -> None:
    intervals = records(stationary(60, 1000.0), stationary(60, 2.0))

    state = steady_state(intervals, series=("latency_p99_ms",))

    assert state is not None
    assert set(state.truncations) == {"latency_p99_ms"}
    with pytest.raises(AnalysisError, match="'cpu' is not an interval KPI"):
        steady_state(intervals, series=("cpu",))
    assert math.isfinite(state.start_s)
