"""The capacity search against synthetic clusters: a queue whose p99 grows as 1/(1 - rate/C)
up to its capacity C (then it saturates), with and without noise, errors above a rate, a
cluster that never meets the SLO, and one that always does; and the search's rules on
literal runs."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from casslab.capacity.find import (
    FailReason,
    FindStatus,
    Point,
    Probe,
    Verdict,
    bracket,
    curve,
    find_capacity,
    judge,
    next_rate,
    pass_probability_low,
    round_rate,
)
from casslab.capacity.find_settings import FindSettings

STEP_S = 10.0


def queue(
    capacity: float,
    base_ms: float = 2.0,
    *,
    noise: float = 0.0,
    seed: int = 1,
    errors_above: float | None = None,
) -> Callable[[float], Probe]:
    """A cluster of capacity ``capacity`` ops/s: p99 = base / (1 - rate/C), times a
    log-normal noise of sigma ``noise``; saturated (done = C, p99 in seconds) at or above C;
    1% of operations fail above ``errors_above``."""
    rng = random.Random(seed)

    def measure(rate: float) -> Probe:
        done = min(rate, capacity)
        p99 = base_ms / (1 - rate / capacity) if rate < capacity else 5000.0
        p99 *= math.exp(noise * rng.gauss(0, 1))
        ops = round(done * STEP_S)
        errors = round(ops * 0.01) if errors_above is not None and rate > errors_above else 0
        return Probe(
            rate_asked_per_s=rate,
            rate_achieved_per_s=(ops - errors) / STEP_S,
            ops=ops - errors,
            errors=errors,
            p50_ms=p99 / 4,
            p99_ms=p99,
            p999_ms=p99 * 2,
            duration_s=STEP_S,
        )

    return measure


def crossing(capacity: float, base_ms: float, slo_ms: float) -> float:
    """The rate at which the noise-free queue's p99 equals the SLO."""
    return capacity * (1 - base_ms / slo_ms)


def test_finds_the_knee_of_a_noise_free_queue_within_the_precision() -> None:
    settings = FindSettings(p99_slo_ms=20, start_rate_per_s=1000)
    result = find_capacity(queue(10_000), settings)
    knee = crossing(10_000, 2.0, 20.0)  # 9000/s
    assert result.status is FindStatus.FOUND
    assert result.max_rate is not None
    assert result.bracket_high_per_s is not None
    assert result.max_rate <= knee < result.bracket_high_per_s
    assert result.bracket_high_per_s <= result.max_rate * 1.05
    assert result.runs_at_max == 3
    assert result.p99_ms_at_max is not None
    assert result.p99_ms_at_max <= 20
    assert len(result.points) <= 16
    assert result.passes_above_fail == 0


@pytest.mark.parametrize("seed", range(8))
def test_noise_moves_the_answer_little_and_never_above_where_p99_is_clearly_over(
    seed: int,
) -> None:
    settings = FindSettings(p99_slo_ms=20, start_rate_per_s=700)
    result = find_capacity(queue(10_000, noise=0.15, seed=seed), settings)
    assert result.status is FindStatus.FOUND
    assert result.max_rate is not None
    # p99 is 1.5x the SLO (clearly over, 2.7 sigma of the noise) at 9333/s
    assert 0.8 * crossing(10_000, 2.0, 20.0) <= result.max_rate <= 9333
    runs = [p for p in result.points if p.probe.rate_asked_per_s == result.max_rate]
    assert len(runs) == 3
    assert all(p.verdict is Verdict.PASS for p in runs)


def test_saturation_fails_a_rate_whose_latency_looks_fine() -> None:
    def flat_then_saturated(rate: float) -> Probe:
        probe = queue(5000)(rate)
        p99 = 3.0 if rate < 5000 else 4.0  # latency never warns; only the rate does
        return probe.model_copy(update={"p99_ms": p99})

    result = find_capacity(flat_then_saturated, FindSettings(p99_slo_ms=20))
    assert result.status is FindStatus.FOUND
    # a run passes when it completes 95% of the rate asked
    assert result.max_rate is not None
    assert 5000 / 1.05 <= result.max_rate <= 5000 / 0.95
    high = [p for p in result.points if p.probe.rate_asked_per_s == result.bracket_high_per_s]
    assert high[0].reason is FailReason.SATURATED


def test_failed_operations_fail_a_rate_unless_the_budget_allows_them() -> None:
    measure = queue(10_000, errors_above=3000)
    strict = find_capacity(measure, FindSettings(p99_slo_ms=20))
    assert strict.max_rate is not None
    assert strict.max_rate <= 3000
    assert strict.bracket_high_per_s is not None
    assert strict.bracket_high_per_s > 3000
    reasons = {p.reason for p in strict.points if p.verdict is Verdict.FAIL}
    assert FailReason.ERRORS in reasons
    lenient = find_capacity(measure, FindSettings(p99_slo_ms=20, error_share=0.02))
    assert lenient.max_rate is not None
    assert lenient.max_rate > 8000


def test_a_cluster_that_never_meets_the_slo_gives_no_rate() -> None:
    settings = FindSettings(p99_slo_ms=20, start_rate_per_s=1000, min_rate_per_s=10)
    result = find_capacity(queue(10_000, base_ms=50), settings)
    assert result.status is FindStatus.NONE_MEETS
    assert result.max_rate is None
    assert result.p99_ms_at_max is None
    rates = [p.probe.rate_asked_per_s for p in result.points]
    assert rates == [1000, 500, 250, 125, 62.5, 31.2, 15.6, 10]  # halving down to the floor
    assert result.pass_probability_low is None


def test_a_cluster_that_always_meets_the_slo_stops_at_the_highest_rate_allowed() -> None:
    settings = FindSettings(p99_slo_ms=20, start_rate_per_s=1000, max_rate_per_s=5000)
    result = find_capacity(queue(1_000_000), settings)
    assert result.status is FindStatus.ABOVE_MAX
    assert result.max_rate == 5000
    assert result.bracket_high_per_s is None
    assert [p.probe.rate_asked_per_s for p in result.points] == [1000, 2000, 4000, 5000, 5000, 5000]


def test_a_repeat_that_fails_moves_the_answer_down() -> None:
    """The answer's second run fails: that rate becomes the bracket's top, the search goes
    on below it and the final answer passed all its runs."""
    calls: dict[float, int] = {}
    base = queue(10_000)

    def flaky(rate: float) -> Probe:
        calls[rate] = calls.get(rate, 0) + 1
        probe = base(rate)
        if rate == 8940 and calls[rate] == 2:  # the first candidate, on its first repeat
            return probe.model_copy(update={"p99_ms": 25.0})
        return probe

    result = find_capacity(flaky, FindSettings(p99_slo_ms=20))
    assert calls.get(8940) == 2
    assert result.bracket_high_per_s is not None
    assert result.bracket_high_per_s <= 8940
    assert result.max_rate is not None
    assert result.max_rate < 8940
    assert result.runs_at_max == 3
    assert all(
        p.verdict is Verdict.PASS
        for p in result.points
        if p.probe.rate_asked_per_s == result.max_rate
    )


def test_the_run_limit_ends_the_search_with_the_answer_so_far() -> None:
    result = find_capacity(queue(10_000), FindSettings(p99_slo_ms=20, max_runs=5))
    assert result.status is FindStatus.RUN_LIMIT
    assert len(result.points) == 5
    assert result.max_rate == 8000  # 1000, 2000, 4000, 8000 pass; 16000 fails


def test_an_interrupt_propagates_after_each_earlier_run_was_reported() -> None:
    seen: list[tuple[int, FindStatus]] = []
    base = queue(10_000)

    def measure(rate: float) -> Probe:
        if len(seen) == 3:
            raise KeyboardInterrupt
        return base(rate)

    with pytest.raises(KeyboardInterrupt):
        find_capacity(
            measure,
            FindSettings(p99_slo_ms=20),
            on_point=lambda point, so_far: seen.append((len(so_far.points), so_far.status)),
        )
    assert seen == [
        (1, FindStatus.INTERRUPTED),
        (2, FindStatus.INTERRUPTED),
        (3, FindStatus.INTERRUPTED),
    ]


# ---------------------------------------------------------------- rules on literal runs


def probe(
    rate: float,
    p99: float | None = 5.0,
    *,
    done: float | None = None,
    errors: int = 0,
    truncated: bool = False,
) -> Probe:
    ops = round((rate if done is None else done) * STEP_S)
    return Probe(
        rate_asked_per_s=rate,
        rate_achieved_per_s=ops / STEP_S,
        ops=ops - errors,
        errors=errors,
        p50_ms=None if p99 is None else 1.0,
        p99_ms=p99,
        p999_ms=None if p99 is None else p99 * 2,
        duration_s=STEP_S,
        truncated=truncated,
    )


SETTINGS = FindSettings(p99_slo_ms=20)


@pytest.mark.parametrize(
    ("measured", "expected"),
    [
        (probe(1000, 19.9), (Verdict.PASS, None)),
        (probe(1000, 20.0), (Verdict.PASS, None)),  # at most the SLO
        (probe(1000, 20.1), (Verdict.FAIL, FailReason.LATENCY)),
        (probe(1000, None), (Verdict.FAIL, FailReason.LATENCY)),
        (probe(1000, 5.0, done=960), (Verdict.PASS, None)),  # within 5% of the rate
        (probe(1000, 5.0, done=940), (Verdict.FAIL, FailReason.SATURATED)),
        (probe(1000, 5.0, truncated=True), (Verdict.FAIL, FailReason.SATURATED)),
        (probe(1000, 5.0, errors=1), (Verdict.FAIL, FailReason.ERRORS)),
        (probe(1000, 50.0, done=500, errors=9), (Verdict.FAIL, FailReason.SATURATED)),
    ],
)
def test_judge(measured: Probe, expected: tuple[Verdict, FailReason | None]) -> None:
    assert judge(measured, SETTINGS) == expected


def test_an_error_budget_is_a_share_of_the_operations_attempted() -> None:
    lenient = FindSettings(p99_slo_ms=20, error_share=0.001)
    assert judge(probe(1000, errors=10), lenient) == (Verdict.PASS, None)  # 10 of 10000
    assert judge(probe(1000, errors=11), lenient) == (Verdict.FAIL, FailReason.ERRORS)


def points(*runs: tuple[float, bool]) -> list[Point]:
    out = []
    for i, (rate, passed) in enumerate(runs, start=1):
        measured = probe(rate, 5.0 if passed else 50.0)
        verdict, reason = judge(measured, SETTINGS)
        out.append(Point(run=i, probe=measured, verdict=verdict, reason=reason))
    return out


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ((), 1000),
        (((1000, True),), 2000),
        (((1000, True), (2000, True)), 4000),
        (((1000, False),), 500),
        (((1000, False), (500, False)), 250),
        (((1000, True), (2000, False)), 1410),  # sqrt(1000 * 2000), 3 digits
        (((1000, True), (2000, False), (1410, True)), 1680),
        (((1000, True), (1040, False)), 1000),  # narrow: confirm 1000
        (((1000, True), (1040, False), (1000, True), (1000, True)), FindStatus.FOUND),
        # the answer failed a repeat: it is the new top, bisect below it
        (((500, True), (1000, True), (1040, False), (1000, False)), 707),
        # noise: 2000 passed above the failing 1000; L is below 1000
        (((500, True), (2000, True), (1000, False)), 707),
        (((10, False),), FindStatus.NONE_MEETS),
    ],
)
def test_next_rate(runs: tuple[tuple[float, bool], ...], expected: float | FindStatus) -> None:
    assert next_rate(points(*runs), SETTINGS) == expected


def test_a_saturated_top_caps_the_bisection_at_what_the_cluster_completed() -> None:
    runs = points((1000, True), (2000, True))
    saturated = probe(4000, 900.0, done=2500)
    verdict, reason = judge(saturated, SETTINGS)
    assert reason is FailReason.SATURATED
    runs.append(Point(run=3, probe=saturated, verdict=verdict, reason=reason))
    assert next_rate(runs, SETTINGS) == 2240  # sqrt(2000 * 2500), not sqrt(2000 * 4000)
    low = probe(4000, 900.0, done=1900)  # completed less than L: the plain mean
    runs[2] = Point(run=3, probe=low, verdict=Verdict.FAIL, reason=FailReason.SATURATED)
    assert next_rate(runs, SETTINGS) == 2830
    near = probe(4000, 900.0, done=2090)  # within the 5% precision of L: the plain mean too
    runs[2] = Point(run=3, probe=near, verdict=Verdict.FAIL, reason=FailReason.SATURATED)
    assert next_rate(runs, SETTINGS) == 2830


def test_a_cap_from_an_overloaded_run_does_not_hold_the_search_below_the_knee() -> None:
    """An overloaded cluster completes less than its capacity: a node of capacity 6,000/s
    that completes only 4,100/s when 8,000/s is asked. The search passes 4,000/s, then
    bisects up to the knee instead of creeping towards the cap by ever smaller steps
    (4,050, 4,070, 4,080, 4,090/s)."""

    def collapsing(rate: float) -> Probe:
        if rate >= 6000:
            return probe(rate, 3000.0, done=4100)
        return probe(rate, 20 * rate / 6000)

    result = find_capacity(collapsing, SETTINGS.model_copy(update={"start_rate_per_s": 1000}))
    assert result.status is FindStatus.FOUND
    assert result.max_rate is not None
    assert 6000 / 1.05 <= result.max_rate < 6000
    rates = [p.probe.rate_asked_per_s for p in result.points]
    assert sum(1 for r in rates if 4000 < r < 4200) <= 1, rates
    assert len(result.points) <= 14, rates


def test_bracket_ignores_passes_above_the_lowest_failure() -> None:
    assert bracket(points((500, True), (2000, True), (1000, False))) == (500, 1000)
    assert bracket(points((1000, True), (1000, False))) == (None, 1000)


@pytest.mark.parametrize(
    ("rate", "rounded"),
    [(1414.2135, 1410.0), (8940.4, 8940.0), (62.5, 62.5), (15.625, 15.6), (123456.0, 123000.0)],
)
def test_round_rate(rate: float, rounded: float) -> None:
    assert round_rate(rate) == rounded


def test_pass_probability_low_is_the_clopper_pearson_bound_after_all_passes() -> None:
    # n passes in n runs: P(n of n | p) = p^n = alpha at the bound
    assert pass_probability_low(3) == pytest.approx(0.3684, abs=1e-4)
    assert pass_probability_low(5) == pytest.approx(0.5493, abs=1e-4)
    assert pass_probability_low(10) == pytest.approx(0.7411, abs=1e-4)
    assert pass_probability_low(0) is None


def test_curve_is_the_median_p99_per_rate_ascending() -> None:
    runs = points((2000, False), (1000, True), (1000, True))
    rows = curve([*runs, Point(run=4, probe=probe(1000, 9.0), verdict=Verdict.PASS)])
    assert rows == [(1000, 5.0, 3, 0), (2000, 50.0, 0, 1)]


# ---------------------------------------------------------------- the recall floor


def recalled(rate: float, recall: float | None, p99: float = 5.0) -> Probe:
    return probe(rate, p99).model_copy(update={"recall": recall})


FLOOR = FindSettings(p99_slo_ms=20, min_recall=0.95)


@pytest.mark.parametrize(
    ("measured", "expected"),
    [
        (recalled(1000, 0.96), (Verdict.PASS, None)),
        (recalled(1000, 0.95), (Verdict.PASS, None)),  # at least the floor
        (recalled(1000, 0.949), (Verdict.FAIL, FailReason.RECALL)),
        (recalled(1000, None), (Verdict.FAIL, FailReason.RECALL)),  # no ANN query counted
        (recalled(1000, 0.5, p99=25.0), (Verdict.FAIL, FailReason.LATENCY)),  # latency first
    ],
)
def test_a_recall_under_the_floor_fails_a_run(
    measured: Probe, expected: tuple[Verdict, FailReason | None]
) -> None:
    assert judge(measured, FLOOR) == expected


def test_without_a_floor_recall_is_measured_not_judged() -> None:
    assert judge(recalled(1000, 0.1), SETTINGS) == (Verdict.PASS, None)


def test_a_recall_that_falls_with_the_rate_caps_the_answer_below_the_latency_knee() -> None:
    # p99 crosses 20 ms at 9,000/s; recall = 1 - rate / 100,000 crosses 0.95 at 5,000/s
    latency_only = queue(10_000)

    def measure(rate: float) -> Probe:
        return latency_only(rate).model_copy(update={"recall": 1.0 - rate / 100_000})

    result = find_capacity(measure, FLOOR.model_copy(update={"start_rate_per_s": 1000.0}))

    assert result.status is FindStatus.FOUND
    assert result.max_rate is not None
    assert result.bracket_high_per_s is not None
    assert result.max_rate <= 5000 < result.bracket_high_per_s
    assert result.bracket_high_per_s <= result.max_rate * 1.05
    assert any(p.reason is FailReason.RECALL for p in result.points)
    # even the lowest rate, 10/s, reaches only 0.9999
    unreachable = FLOOR.model_copy(update={"min_recall": 0.99999})
    assert find_capacity(measure, unreachable).status is FindStatus.NONE_MEETS
