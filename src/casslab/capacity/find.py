"""The capacity search: the highest open-loop rate whose p99 response time stays under an
SLO with no (or few) failed operations. Pure: the measurements come from a ``measure(rate)``
callable (:mod:`casslab.capacity.probe` runs the load engine; tests use a queue model).

The search, one run at a time (:func:`next_rate` decides each next rate from the runs so
far, so the search can stop and be resumed at any point):

1. **Ramp**: from the start rate, multiply by the ramp factor while runs pass; below a
   first run that fails, divide by it instead.
2. **Bisect** between the highest passing rate *L* and the lowest failing rate *H*
   (geometric mean, rounded to three significant digits) until *H* ≤ *L* · (1 + precision).
   When *H* saturated, the rate the cluster completed there stands in for *H* in the mean
   (no higher rate can pass), which saves the runs a blind bisection spends above it;
   until *L* is within the precision of that rate: an overloaded cluster completes less
   than it can at its knee (one node completed 51,435/s when 64,000/s was asked, then
   passed 60,600/s three times), so a cap that *L* has reached says nothing more, and
   means taken with it would only creep towards it.
3. **Confirm**: run *L* again until it has passed ``repeats`` runs. One failed run fails a
   rate; then *H* moves down to it and the search goes on below.

A run passes when its p99 (from the intended start: coordinated-omission corrected) is at
most the SLO, the share of failed operations is within the budget, the engine completed
at least ``1 - saturation_tolerance`` of the rate asked (otherwise the rate is *saturated*),
and, with a recall floor, the mean recall@k of its ANN queries is at least the floor (a
vector index that answers faster by searching less fails here as a slow one fails the p99).

**Decision rule.** A rate *passes* when every one of its runs passed, and *fails* when any
did. The answer ``max_rate`` is *L*: the highest rate below the lowest failing rate whose
runs all passed, at least ``repeats`` of them. With p99 rising with the rate, the rate at
which p99 crosses the SLO lies in the bracket [*L*, *H*). The repeats bound how often a
rate that fails a run is accepted: after *n* passes in *n* runs, the one-sided 95%
Clopper-Pearson lower bound on the probability that a run at *L* passes is 0.05^(1/n)
(0.37 for 3 runs, 0.55 for 5, 0.74 for 10): :func:`pass_probability_low`. The rule is
conservative: a rate that passed above a failed one (noise) is not the answer, it is
counted in ``passes_above_fail``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Final, Literal

from pydantic import Field

from casslab.capacity.find_settings import FindSettings
from casslab.record import Record

SCHEMA_VERSION: Final[Literal[1]] = 1
CONFIDENCE_ALPHA = 0.05  # of the Clopper-Pearson bound reported with the answer
SIGNIFICANT_DIGITS = 3  # of the rates asked


class Probe(Record):
    """What one fixed-rate run measured. ``p99_ms`` is None when nothing was measured (a
    run cut short before its measured phase); ``truncated`` marks a run that was stopped at
    its deadline because the cluster could not keep up."""

    schema_version: Literal[1] = SCHEMA_VERSION
    rate_asked_per_s: float
    rate_achieved_per_s: float
    ops: int  # successful operations in the measured phase
    errors: int  # failed operations in the measured phase
    p50_ms: float | None
    p99_ms: float | None
    p999_ms: float | None
    duration_s: float  # of the measured phase
    truncated: bool = False
    first_error: str | None = None  # the first failed operation's message, if any
    recall: float | None = None  # mean recall@k of the run's ANN queries; None: none counted


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"


class FailReason(StrEnum):
    LATENCY = "latency"  # p99 above the SLO
    ERRORS = "errors"  # more failed operations than the budget
    SATURATED = "saturated"  # the cluster completed less than the rate asked
    RECALL = "recall"  # mean recall@k under the floor (or no ANN query counted)


class Point(Record):
    """One run of the search: what was measured and how it was judged."""

    schema_version: Literal[1] = SCHEMA_VERSION
    run: int  # 1, 2, ... in the order of the search
    probe: Probe
    verdict: Verdict
    reason: FailReason | None = None


class FindStatus(StrEnum):
    FOUND = "found"  # a bracket [max_rate, first failing rate) within the precision
    NONE_MEETS = "none_meets"  # even the lowest rate tried failed
    ABOVE_MAX = "above_max"  # no run failed up to the highest rate allowed
    RUN_LIMIT = "run_limit"  # the search used all its runs first
    INTERRUPTED = "interrupted"  # stopped by the user; the points so far


class FindResult(Record):
    """The answer: ``max_rate`` (ops/s; None when no rate passed), its bracket and every run."""

    schema_version: Literal[1] = SCHEMA_VERSION
    status: FindStatus
    max_rate: float | None
    p99_ms_at_max: float | None  # the highest p99 of the runs at max_rate
    p99_ms_median_at_max: float | None
    bracket_low_per_s: float | None  # = max_rate
    bracket_high_per_s: float | None  # the lowest failing rate above it, if any
    runs_at_max: int
    pass_probability_low: float | None  # one-sided 95% Clopper-Pearson, from runs_at_max
    passes_above_fail: int  # runs that passed above the lowest failing rate (noise)
    settings: FindSettings
    points: list[Point] = Field(default_factory=list)
    elapsed_s: float | None = None  # wall time of the whole search (set by the caller)


Measure = Callable[[float], Probe]


def judge(probe: Probe, settings: FindSettings) -> tuple[Verdict, FailReason | None]:
    """A run's verdict; of several reasons, saturation first, then errors, latency, recall."""
    attempted = probe.ops + probe.errors
    completed_per_s = attempted / probe.duration_s if probe.duration_s > 0 else 0.0
    floor = probe.rate_asked_per_s * (1.0 - settings.saturation_tolerance)
    if probe.truncated or completed_per_s < floor:
        return Verdict.FAIL, FailReason.SATURATED
    if probe.errors > settings.error_share * attempted:
        return Verdict.FAIL, FailReason.ERRORS
    if probe.p99_ms is None or probe.p99_ms > settings.p99_slo_ms:
        return Verdict.FAIL, FailReason.LATENCY
    least = settings.min_recall
    if least is not None and (probe.recall is None or probe.recall < least):
        return Verdict.FAIL, FailReason.RECALL
    return Verdict.PASS, None


def round_rate(rate: float) -> float:
    """``rate`` to three significant digits (the rates asked stay readable and repeatable)."""
    if rate <= 0:
        return rate
    digits = SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(rate))
    return float(round(rate, digits))


def _by_rate(points: Sequence[Point]) -> dict[float, list[Point]]:
    grouped: dict[float, list[Point]] = {}
    for point in points:
        grouped.setdefault(point.probe.rate_asked_per_s, []).append(point)
    return grouped


def bracket(points: Sequence[Point]) -> tuple[float | None, float | None]:
    """(*L*, *H*): the lowest rate with a failed run, and the highest rate below it whose
    runs all passed (see the module docstring)."""
    grouped = _by_rate(points)
    failing = [r for r, ps in grouped.items() if any(p.verdict is Verdict.FAIL for p in ps)]
    high = min(failing) if failing else None
    passing = [r for r in grouped if r not in failing and (high is None or r < high)]
    return (max(passing) if passing else None), high


def passes_at(points: Sequence[Point], rate: float) -> int:
    return sum(1 for p in points if p.probe.rate_asked_per_s == rate and p.verdict is Verdict.PASS)


def _saturation_cap(points: Sequence[Point], rate: float) -> float:
    """What the cluster completed in the saturated runs at ``rate`` (ops/s): rates above
    it cannot pass, so the bisection's top is at most this. ``rate`` when none saturated."""
    done = [
        (p.probe.ops + p.probe.errors) / p.probe.duration_s
        for p in points
        if p.probe.rate_asked_per_s == rate
        and p.reason is FailReason.SATURATED
        and p.probe.duration_s > 0
    ]
    return max(done) if done else rate


def next_rate(points: Sequence[Point], settings: FindSettings) -> float | FindStatus:
    """The rate of the next run, or the status the search ends with."""
    if not points:
        return round_rate(settings.start_rate_per_s)
    low, high = bracket(points)
    if len(points) >= settings.max_runs:
        return FindStatus.RUN_LIMIT
    if low is None:
        assert high is not None  # a point exists, so it passed or failed
        if high <= settings.min_rate_per_s:
            return FindStatus.NONE_MEETS
        return round_rate(max(high / settings.ramp_factor, settings.min_rate_per_s))
    if high is None and low < settings.max_rate_per_s:
        return round_rate(min(low * settings.ramp_factor, settings.max_rate_per_s))
    if high is not None and high > low * (1.0 + settings.precision):
        cap = _saturation_cap(points, high)
        for top in (cap, high) if low * (1.0 + settings.precision) < cap < high else (high,):
            middle = round_rate(math.sqrt(low * top))
            if low < middle < high:
                return middle
    if passes_at(points, low) < settings.repeats:
        return low
    return FindStatus.FOUND if high is not None else FindStatus.ABOVE_MAX


def pass_probability_low(runs: int, alpha: float = CONFIDENCE_ALPHA) -> float | None:
    """One-sided (1 - alpha) Clopper-Pearson lower bound on the probability of passing
    after ``runs`` passes in ``runs`` runs: alpha^(1/runs)."""
    return alpha ** (1.0 / runs) if runs > 0 else None


def summarize(points: Sequence[Point], settings: FindSettings, status: FindStatus) -> FindResult:
    """The result of the search after ``points``, ending with ``status``."""
    low, high = bracket(points)
    at_max = [p for p in points if low is not None and p.probe.rate_asked_per_s == low]
    p99s = [p.probe.p99_ms for p in at_max if p.probe.p99_ms is not None]
    above = [
        p
        for p in points
        if high is not None and p.probe.rate_asked_per_s > high and p.verdict is Verdict.PASS
    ]
    return FindResult(
        status=status,
        max_rate=low,
        p99_ms_at_max=max(p99s) if p99s else None,
        p99_ms_median_at_max=statistics.median(p99s) if p99s else None,
        bracket_low_per_s=low,
        bracket_high_per_s=high,
        runs_at_max=len(at_max),
        pass_probability_low=pass_probability_low(len(at_max)),
        passes_above_fail=len(above),
        settings=settings,
        points=list(points),
    )


def find_capacity(
    measure: Measure,
    settings: FindSettings,
    *,
    on_point: Callable[[Point, FindResult], None] | None = None,
) -> FindResult:
    """Search as the module docstring says; ``on_point`` sees each run as it is judged with
    the result so far (to print it and save it: an interrupted search keeps its points).

    Exceptions of ``measure`` (an interrupt, an engine failure) propagate; the points
    measured before are the ones ``on_point`` saw."""
    points: list[Point] = []
    while True:
        decision = next_rate(points, settings)
        if isinstance(decision, FindStatus):
            return summarize(points, settings, decision)
        probe = measure(decision)
        verdict, reason = judge(probe, settings)
        point = Point(run=len(points) + 1, probe=probe, verdict=verdict, reason=reason)
        points.append(point)
        if on_point is not None:
            on_point(point, summarize(points, settings, FindStatus.INTERRUPTED))


def curve(points: Sequence[Point]) -> list[tuple[float, float, int, int]]:
    """The hockey stick: per rate asked, ascending, the median p99 (ms) of its runs, and
    how many runs passed and failed there. Runs with no p99 are left out of the median."""
    rows: list[tuple[float, float, int, int]] = []
    for rate, group in sorted(_by_rate(points).items()):
        p99s = [p.probe.p99_ms for p in group if p.probe.p99_ms is not None]
        if not p99s:
            continue
        passed = sum(1 for p in group if p.verdict is Verdict.PASS)
        rows.append((rate, statistics.median(p99s), passed, len(group) - passed))
    return rows
