"""Confirmation: the ABAB schedule and the verdict's statistics, against figures worked
out by hand (Fieller's ratio interval and Welch's test for means 100 and 120, variance 4,
three repetitions each: ratio 1.2, df 3.874, t 2.8124, interval 1.15050 .. 1.25204;
t = 20 / sqrt(8/3) = 12.247 on 4 df, p = 0.000255; each mean +- 4.9683)."""

from __future__ import annotations

import pytest

from casslab.tune.confirm import confirm_label, pick, schedule, verdict
from casslab.tune.objective import constraint_values, ranked, score, violations
from casslab.tune.spec import Goal, Objective
from casslab.tune.tuning_result import Measurement, Role, Verdict

THROUGHPUT = Objective(goal=Goal.MAX_THROUGHPUT, p99_ms_max=50)
LATENCY = Objective(goal=Goal.MIN_P99, rate=1000)


def runs(prefix: str, rates: list[float], p99: float = 10.0) -> list[Measurement]:
    return [
        Measurement(
            label=f"{prefix}-{i}", params={}, finished=True, op_rate=r, p99_ms=p99, errors=0
        )
        for i, r in enumerate(rates, start=1)
    ]


def test_the_schedule_interleaves_the_default_with_every_candidate() -> None:
    assert schedule(1, 3) == [(1, "d"), (1, "c1"), (2, "d"), (2, "c1"), (3, "d"), (3, "c1")]
    assert schedule(2, 2) == [(1, "d"), (1, "c1"), (1, "c2"), (2, "d"), (2, "c1"), (2, "c2")]
    assert confirm_label(2, "c1") == "confirm-c1-2"


def test_a_significant_gain_with_its_interval_worked_out_by_hand() -> None:
    c = verdict(
        THROUGHPUT, "s004", Role.SEARCH, {}, runs("c", [120, 122, 118]), runs("d", [100, 102, 98])
    )
    assert c.verdict is Verdict.GAIN
    assert c.gain_pct == pytest.approx(20.0)
    assert c.gain_ci_pct == pytest.approx((15.04967, 25.20370), abs=1e-4)
    assert c.p_value == pytest.approx(0.000255217, rel=1e-4)
    assert c.candidate.mean == pytest.approx(120.0)
    assert c.candidate.ci == pytest.approx((120 - 4.968275, 120 + 4.968275), abs=1e-5)
    assert c.candidate.labels == ("c-1", "c-2", "c-3")
    assert c.default.labels == ("d-1", "d-2", "d-3")
    assert pick([c], THROUGHPUT) == c


def test_no_significant_gain_when_the_interval_includes_zero() -> None:
    c = verdict(
        THROUGHPUT, "s004", Role.SEARCH, {}, runs("c", [101, 99, 103]), runs("d", [100, 104, 97])
    )
    assert c.verdict is Verdict.NO_GAIN
    assert c.gain_ci_pct is not None
    assert c.gain_ci_pct[0] < 0 < c.gain_ci_pct[1]
    assert pick([c], THROUGHPUT) is None


def test_worse_infeasible_and_undetermined() -> None:
    worse = verdict(
        THROUGHPUT, "a", Role.SEARCH, {}, runs("c", [80, 81, 79]), runs("d", [100, 101, 99])
    )
    assert worse.verdict is Verdict.WORSE
    slow = verdict(
        THROUGHPUT,
        "b",
        Role.SEARCH,
        {},
        runs("c", [120, 122, 118], p99=60),
        runs("d", [100, 102, 98]),
    )
    assert slow.verdict is Verdict.INFEASIBLE
    assert "c-1: p99 60.0 ms > 50 ms" in slow.reason
    one = verdict(THROUGHPUT, "c", Role.SEARCH, {}, runs("c", [120]), runs("d", [100, 101]))
    assert one.verdict is Verdict.UNDETERMINED
    assert one.gain_ci_pct is None


def test_for_latency_a_drop_is_a_gain() -> None:
    def at(p99s: list[float], prefix: str) -> list[Measurement]:
        return [
            m.model_copy(update={"p99_ms": p, "op_rate": 1000.0})
            for m, p in zip(runs(prefix, [0] * len(p99s)), p99s, strict=True)
        ]

    c = verdict(
        LATENCY, "s1", Role.SEARCH, {}, at([8.0, 8.2, 7.8], "c"), at([10.0, 10.2, 9.8], "d")
    )
    assert c.metric == "p99_ms"
    assert c.verdict is Verdict.GAIN
    assert c.gain_pct == pytest.approx(20.0)


def test_feasibility_constraints_and_ranking() -> None:
    fast_but_slow_p99, ok, failed = (
        Measurement(label="a", params={}, finished=True, op_rate=900, p99_ms=70, errors=0),
        Measurement(label="b", params={}, finished=True, op_rate=500, p99_ms=20, errors=0),
        Measurement(label="c", params={}, finished=False, reason="node did not start"),
    )
    assert violations(THROUGHPUT, fast_but_slow_p99) == ["p99 70.0 ms > 50 ms"]
    assert constraint_values(THROUGHPUT, ok) == {"p99_over_ms": -30, "errors": 0, "rate_short": 0}
    assert constraint_values(THROUGHPUT, failed)["errors"] == 1e6
    scored = [score(THROUGHPUT, m, Role.SEARCH) for m in (fast_but_slow_p99, ok, failed)]
    assert [t.measurement.label for t in ranked(THROUGHPUT, scored)] == ["b"]
    assert scored[2].values == (0.0,)
    assert not scored[2].feasible
    short = Measurement(label="d", params={}, finished=True, op_rate=900, p99_ms=5, errors=0)
    assert violations(LATENCY, short) == ["op_rate 900/s is 90% of 1000/s (< 95%)"]
