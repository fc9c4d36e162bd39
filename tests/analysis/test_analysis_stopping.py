"""The precision stopping rule on literal per-trial KPIs, half-widths worked out by hand.

Cell ``a``'s op rates 990, 1000, 1010: mean 1000, s = 10, se = 10/√3, t(0.975, 2) =
4.302653, half-width 24.841 = 2.484% of the mean. Cell ``b``'s 900, 1000, 1100: s = 100,
half-width 248.41 = 24.84%.
"""

from __future__ import annotations

import math

import pytest

from casslab.analysis import StoppingDecision, StoppingRule, TrialKpis, decide
from casslab.errors import AnalysisError

T_975_2 = 4.302652729911275
A_PCT = 100 * T_975_2 * 10 / math.sqrt(3) / 1000  # 2.4841
B_PCT = 100 * T_975_2 * 100 / math.sqrt(3) / 1000  # 24.841


def trials(cell: str, values: list[float | None], kpi: str = "op_rate") -> list[TrialKpis]:
    return [
        TrialKpis(trial_id=f"{cell}/{i}", cell_id=cell, iteration=i, kpis={kpi: v})
        for i, v in enumerate(values, start=1)
    ]


A = trials("a", [990.0, 1000.0, 1010.0])
B = trials("b", [900.0, 1000.0, 1100.0])


def test_half_widths_by_hand() -> None:
    decision = decide([*A, *B], kpis=["op_rate"], target_pct=3.0, min_iterations=3)

    a, b = decision.precision
    assert (a.cell_id, a.kpi, a.n) == ("a", "op_rate", 3)
    assert a.half_width == pytest.approx(T_975_2 * 10 / math.sqrt(3))
    assert a.half_width_pct == pytest.approx(A_PCT)
    assert a.done
    assert a.reason == "±2.5% <= 3.0%"
    assert b.half_width_pct == pytest.approx(B_PCT)
    assert not b.done
    assert b.reason == "±24.8% > 3.0%"


@pytest.mark.parametrize(
    ("given", "kwargs", "done", "rule", "sentence"),
    [
        # every cell narrow enough
        (
            A,
            {"target_pct": 3.0},
            True,
            StoppingRule.PRECISION,
            "every cell's 95% CI half-width on op_rate is <= 3.0% after 3 iterations",
        ),
        # one cell too wide, below max: go on
        (
            [*A, *B],
            {"target_pct": 3.0, "max_iterations": 20},
            False,
            StoppingRule.PRECISION,
            "not yet precise after 3 iterations (target ±3.0%): cell b op_rate ±24.8% > 3.0%",
        ),
        # max reached: stop, and say what is still wide
        (
            [*A, *B],
            {"target_pct": 3.0, "max_iterations": 3},
            True,
            StoppingRule.MAX,
            "max 3 iterations reached; cell b op_rate still ±24.8% > 3.0%",
        ),
        # fewer rounds than the minimum: never done
        (
            A,
            {"target_pct": 3.0, "min_iterations": 5},
            False,
            StoppingRule.PRECISION,
            "3 iterations of at least 5 ran; the 95% CIs on op_rate are judged from then on",
        ),
        # a fixed number of iterations
        (
            A,
            {"target_pct": None, "min_iterations": 3},
            True,
            StoppingRule.FIXED,
            "fixed: 3 iterations per cell ran",
        ),
        (
            A,
            {"target_pct": None, "min_iterations": 4},
            False,
            StoppingRule.FIXED,
            "fixed: 3 iterations per cell of 4 ran",
        ),
    ],
)
def test_decisions(
    given: list[TrialKpis],
    kwargs: dict[str, object],
    done: bool,
    rule: StoppingRule,
    sentence: str,
) -> None:
    decision = decide(given, kpis=["op_rate"], **kwargs)  # type: ignore[arg-type]

    assert isinstance(decision, StoppingDecision)
    assert (decision.done, decision.rule, decision.sentence) == (done, rule, sentence)
    assert decision.rounds == 3


def test_a_cell_with_one_trial_or_a_zero_mean_is_not_done() -> None:
    one = trials("one", [1000.0])
    zero = trials("zero", [0.0, 0.0, 0.0], kpi="errors")
    decision = decide(
        [*A, *one, *trials("zero", [1.0, 1.0]), *zero],
        kpis=["op_rate", "errors"],
        target_pct=5.0,
        cells=["a", "one", "zero", "never"],
        rounds=3,
    )

    by = {(p.cell_id, p.kpi): p for p in decision.precision}
    assert not decision.done
    assert by[("one", "op_rate")].reason == "n=1: no CI"
    assert by[("zero", "errors")].reason == "mean 0: no relative width"
    assert by[("zero", "errors")].half_width == 0.0
    assert by[("never", "op_rate")].n == 0
    assert not any(by[key].done for key in [("one", "op_rate"), ("zero", "errors")])
    assert by[("a", "op_rate")].done
    assert by[("a", "errors")].reason == "n=0: no CI"  # cell a never measured errors
    assert decision.sentence.startswith("not yet precise after 3 iterations (target ±5.0%): ")
    assert decision.sentence.endswith("; and 3 more")  # 6 short: a, one x2, zero, never x2


def test_two_kpis_are_named_in_the_sentence() -> None:
    both = [
        TrialKpis(
            trial_id=f"a/{i}",
            cell_id="a",
            iteration=i,
            kpis={"op_rate": 1000.0 + d, "latency_p99_ms": 5.0 + d / 100},
        )
        for i, d in enumerate([-1.0, 0.0, 1.0], start=1)
    ]

    decision = decide(both, kpis=["op_rate", "latency_p99_ms"], target_pct=3.0)

    assert decision.done
    assert decision.sentence == (
        "every cell's 95% CI half-width on op_rate and latency_p99_ms is <= 3.0% after 3 iterations"
    )


def test_the_confidence_level_widens_the_interval() -> None:
    at_99 = decide(A, kpis=["op_rate"], target_pct=3.0, confidence=0.99)

    # t(0.995, 2) = 9.9248: ±5.73%
    assert at_99.precision[0].half_width_pct == pytest.approx(5.7301, rel=1e-4)
    assert not at_99.done
    assert "99% CI" not in at_99.sentence  # not done: the sentence names the shortfall


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kpis": [], "target_pct": 3.0}, "no KPI named"),
        ({"kpis": ["op_rate"], "target_pct": 0.0}, "must be > 0"),
        (
            {"kpis": ["op_rate"], "target_pct": 3.0, "min_iterations": 5, "max_iterations": 4},
            "max_iterations 4 < min_iterations 5",
        ),
        ({"kpis": ["no_such_kpi"], "target_pct": 3.0}, "unknown KPI"),
    ],
)
def test_bad_arguments_are_analysis_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(AnalysisError, match=message):
        decide(A, **kwargs)  # type: ignore[arg-type]
