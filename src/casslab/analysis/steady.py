"""Steady state of a trial: where the warm-up transient of its measured phase ends (MSER-5).

Method: MSER-5 truncation, the Marginal Standard Error Rule applied to batch means of 5
(White 1997, "An effective truncation heuristic for bias reduction in simulation output",
*Simulation* 69(6):323-334; White, Cobb & Spratt 2000, "A comparison of five steady-state
truncation heuristics for simulation", *Proc. Winter Simulation Conference*, 755-760).
The per-interval series ``x_1 .. x_n`` is cut into ``k = ⌊n/5⌋`` batches of 5 consecutive
intervals (a last incomplete batch is left out of the statistic, never out of the KPIs);
``z_j`` is the mean of batch ``j``. For a truncation of ``d`` batches

    MSER(d) = Σ_{j=d+1..k} (z_j - z̄_d)² / (k - d)²,   z̄_d the mean of z_{d+1..k}

(the squared standard error of the truncated mean, up to a constant), and the truncation
point is ``d* = argmin MSER(d)`` (the smallest ``d`` on a tie, so a constant series is
not truncated). The steady part starts at interval ``5·d*``.

Choices made here, and why:

* **Search range: the first half.** ``d`` runs from 0 to ``h = ⌊k/2⌋``. A truncation past
  the half is unreliable (White 1997; White, Cobb & Spratt 2000: the run is too short),
  and scanning there does harm: the statistic of a short tail rests on few batch means
  and is small by chance (with one batch left it *is* 0), so it picks spurious late
  minima. In simulations of stationary AR(1) series (φ = 0 .. 0.8) of 60 to 120 intervals,
  scanning to ``k - 5`` put the minimum in the second half 10-19% of the time, scanning
  the first half put it at ``h`` 2-12% of the time (under 1% from 300 intervals).
* **Not steady.** When the minimum is at ``d* = h``, the statistic still falls at the
  half: the transient does not end in the first half, the series trends or drifts
  throughout, and the trial is flagged *not steady*. (A weak trend that MSER judges
  cheaper to keep than to cut, its bias small against the noise, passes as steady: that
  is MSER's own criterion, the mean squared error of the mean.)
* **Too short to judge.** Fewer than 10 batches (50 one-second intervals) are too few to
  tell a transient from noise: the trial is flagged *not steady*, with that reason. Even
  at 50-60 intervals a stationary series is flagged about 10% of the time; 120 intervals
  or more make the rule dependable.
* **Which series.** The total op rate and the mean response time per interval. In a
  closed-loop run (fixed threads) the op rate carries the transient and latency mirrors
  it; in an open-loop run (fixed arrival rate) the op rate is held by the schedule and
  latency (from the intended start, so it includes queueing) carries it. Both are judged
  and the *later* truncation point is taken: every engine KPI is computed from both
  (throughput and latency), so the steady part must be past the transient of each;
  taking the earlier one would leave the other's bias in. When either series is not
  steady, the trial is not steady.
* **A trial that is not steady** keeps its whole measured phase for its KPIs (its MSER
  point is kept in :attr:`SteadyState.truncations`, for the record): discarding half of
  a run on an unreliable truncation would be worse than not truncating, and the report
  flags the trial and the verdicts that rest on it.

A batch whose intervals all lack a value (no operation completed, so no mean latency)
makes that series unusable; the other series decides alone, and with none the trial is
not steady. Pure: values in, a :class:`~casslab.analysis.analysis_records.SteadyState` out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from casslab.analysis.analysis_records import SteadyState
from casslab.engine_contract.engine_records import IntervalRecord
from casslab.errors import AnalysisError

BATCH_SIZE = 5  # MSER-5
MIN_BATCHES = 10  # fewer batches are too short to judge
LEAST_BATCHES = 4  # the smallest min_batches that leaves a first half to scan
STEADY_SERIES = ("op_rate", "latency_mean_ms")  # judged together; the later point wins
WHOLE_PHASE = "the KPIs cover the whole measured phase"


@dataclass(frozen=True)
class Truncation:
    """MSER-5 on one series: the truncation in batches and intervals, and its verdict."""

    batches: int  # complete batches
    d_star: int  # batches truncated
    start_index: int  # first interval kept, d_star * batch size
    first_half: bool  # the minimum lies inside the first half (d_star < batches // 2)
    statistics: tuple[float, ...]  # MSER(d) for d = 0 .. batches // 2


def batch_means(values: Sequence[float | None], batch_size: int = BATCH_SIZE) -> list[float | None]:
    """Means of consecutive complete batches of ``batch_size`` values; a missing value
    (``None``) is left out of its batch's mean, and a batch with none present is ``None``."""
    if batch_size < 1:
        raise AnalysisError(f"batch means: batch size {batch_size} must be at least 1")
    out: list[float | None] = []
    for first in range(0, len(values) - batch_size + 1, batch_size):
        present = [float(v) for v in values[first : first + batch_size] if v is not None]
        out.append(math.fsum(present) / len(present) if present else None)
    return out


def mser_statistics(means: Sequence[float], last_d: int) -> list[float]:
    """``MSER(d)`` for ``d = 0 .. last_d`` over the batch means ``means`` (see the module
    docstring); two-pass sums, so a constant series gives exact zeros."""
    k = len(means)
    if not 0 <= last_d < k:
        raise AnalysisError(
            f"MSER statistic: truncation {last_d} of {k} batch means leaves none; give "
            "last_d < the number of batches"
        )
    out: list[float] = []
    for d in range(last_d + 1):
        tail = means[d:]
        size = len(tail)
        mean = math.fsum(tail) / size
        out.append(math.fsum((z - mean) ** 2 for z in tail) / size**2)
    return out


def mser_truncation(
    values: Sequence[float | None],
    *,
    batch_size: int = BATCH_SIZE,
    min_batches: int = MIN_BATCHES,
) -> Truncation | None:
    """MSER-``batch_size`` on one series, ``d`` over the first half; ``None`` when it is
    too short (fewer than ``min_batches`` complete batches) or a batch has no value."""
    means = batch_means(values, batch_size)
    if len(means) < max(min_batches, LEAST_BATCHES) or any(m is None for m in means):
        return None
    present = [m for m in means if m is not None]
    k = len(present)
    half = k // 2
    statistics = mser_statistics(present, half)
    best = min(statistics)
    # the smallest d at the minimum (a relative tolerance absorbs rounding on ties)
    d_star = next(d for d, s in enumerate(statistics) if s <= best + 1e-12 * abs(best))
    return Truncation(
        batches=k,
        d_star=d_star,
        start_index=d_star * batch_size,
        first_half=d_star < half,
        statistics=tuple(statistics),
    )


def detect_steady_state(
    series: Mapping[str, Sequence[float | None]],
    starts_s: Sequence[float],
    *,
    batch_size: int = BATCH_SIZE,
    min_batches: int = MIN_BATCHES,
) -> SteadyState:
    """The steady state of one trial from its per-interval series (see the module
    docstring). ``starts_s[i]`` is when interval ``i`` began, in seconds since the
    measured phase began (``starts_s[0]`` is usually 0); every series has one value per
    interval."""
    if min_batches < LEAST_BATCHES:
        raise AnalysisError(
            f"steady state: min_batches {min_batches} is below {LEAST_BATCHES}; MSER needs a "
            "first half of at least 2 batches to scan"
        )
    n = len(starts_s)
    for name, values in series.items():
        if len(values) != n:
            raise AnalysisError(
                f"steady state: series {name!r} has {len(values)} values for {n} intervals; "
                "give one value per measured interval"
            )
    not_steady = {"steady": False, "start_index": 0, "start_s": 0.0, "n_intervals": n}
    batches = n // batch_size
    if batches < min_batches:
        return SteadyState(
            **not_steady,
            batch_size=batch_size,
            reason=(
                f"too short to judge: {n} measured intervals make {batches} batches of "
                f"{batch_size}; MSER-{batch_size} needs at least {min_batches} batches "
                f"({min_batches * batch_size} intervals); {WHOLE_PHASE}: measure longer"
            ),
        )
    found = {
        name: mser_truncation(values, batch_size=batch_size, min_batches=min_batches)
        for name, values in series.items()
    }
    usable = {name: t for name, t in found.items() if t is not None}
    truncations = {name: t.start_index for name, t in usable.items()}
    if not usable:
        return SteadyState(
            **not_steady,
            batch_size=batch_size,
            reason=(
                f"no series to judge: {', '.join(series) or 'none given'} lack values in "
                f"some batch of intervals (no operation completed); {WHOLE_PHASE}"
            ),
        )
    late = [name for name, t in usable.items() if not t.first_half]
    if late:
        detail = "; ".join(
            f"{name} at {_offset(starts_s, usable[name].start_index):.0f} s "
            f"({usable[name].start_index} of {n} intervals)"
            for name in late
        )
        return SteadyState(
            **not_steady,
            batch_size=batch_size,
            truncations=truncations,
            reason=(
                f"trends throughout: MSER-{batch_size} finds no end of the transient in the "
                f"first half of the measured phase (its statistic still falls at the half: "
                f"{detail}); {WHOLE_PHASE}: measure longer or check the load"
            ),
        )
    start_index = max(t.start_index for t in usable.values())
    return SteadyState(
        steady=True,
        start_index=start_index,
        start_s=_offset(starts_s, start_index),
        n_intervals=n,
        batch_size=batch_size,
        truncations=truncations,
    )


def _offset(starts_s: Sequence[float], index: int) -> float:
    if not starts_s:
        return 0.0
    return max(0.0, float(starts_s[index]) - float(starts_s[0]))


def measured_intervals(
    intervals: Sequence[IntervalRecord], *, phase: str = "measure"
) -> list[IntervalRecord]:
    """The intervals of one phase, in time order."""
    return sorted((i for i in intervals if i.phase == phase), key=lambda i: i.t_start_s)


def steady_state(
    intervals: Sequence[IntervalRecord],
    *,
    phase: str = "measure",
    series: Sequence[str] = STEADY_SERIES,
    batch_size: int = BATCH_SIZE,
    min_batches: int = MIN_BATCHES,
) -> SteadyState | None:
    """The steady state of a trial from its engine interval records; ``None`` when it has
    no interval of ``phase`` (nothing to judge). ``series`` are total KPIs of an
    interval: ``op_rate`` and latency KPIs (``latency_mean_ms``, ``latency_p99_ms``...)."""
    chosen = measured_intervals(intervals, phase=phase)
    if not chosen:
        return None
    values = {name: [_total(i, name) for i in chosen] for name in series}
    origin = chosen[0].t_start_s
    return detect_steady_state(
        values,
        [i.t_start_s - origin for i in chosen],
        batch_size=batch_size,
        min_batches=min_batches,
    )


def _total(interval: IntervalRecord, name: str) -> float | None:
    total = interval.total
    if name == "op_rate":
        return float(total.op_rate)
    if name.startswith("latency_") and name.endswith("_ms"):
        field = name.removeprefix("latency_")
        if total.response.count == 0:
            return None
        value = getattr(total.response, field, None)
        if value is not None:
            return float(value)
    raise AnalysisError(
        f"steady state: series {name!r} is not an interval KPI; use op_rate or a latency "
        "KPI such as latency_mean_ms"
    )
