"""A study's claims judged on literal trial tables: holds, contradicted, not significant (with
the iterations needed), not testable, undetermined; sizes, equality bands, matched pairs."""

from __future__ import annotations

import math

import pytest

from casslab.analysis import AnalysisOptions, TrialKpis
from casslab.analysis.claim_records import Claim
from casslab.analysis.claim_verdicts import ClaimVerdict, judge_claim, judge_claims, needed_n


def trials(cells: dict[str, list[float]], other: dict[str, str] | None = None) -> list[TrialKpis]:
    """Cells named by their compaction level, one trial per value of op_rate."""
    out = []
    for level, values in cells.items():
        factors = {"table.compaction": level, **(other or {})}
        cell = ",".join(f"{k}={v}" for k, v in factors.items())
        out += [
            TrialKpis(
                trial_id=f"{cell}/{i}",
                cell_id=cell,
                iteration=i,
                factors=factors,
                kpis={"op_rate": v},
            )
            for i, v in enumerate(values, start=1)
        ]
    return out


def claim(direction: str = "higher", **fields: object) -> Claim:
    return Claim.model_validate(
        {
            "says": "LCS sustains more operations than STCS",
            "source": "seed 001, Table 2",
            "compare": {"a": {"table.compaction": "LCS"}, "b": {"table.compaction": "STCS"}},
            "kpi": "op_rate",
            "direction": direction,
            **fields,
        }
    )


FASTER = {"STCS": [100.0, 102.0, 98.0], "LCS": [120.0, 121.0, 119.0]}
SLOWER = {"STCS": [100.0, 102.0, 98.0], "LCS": [90.0, 91.0, 89.0]}
NOISY = {"STCS": [100.0, 110.0, 90.0], "LCS": [101.0, 111.0, 91.0]}


def test_a_significant_rise_in_the_claimed_direction_holds() -> None:
    result = judge_claim(claim(), trials(FASTER))
    assert result.verdict is ClaimVerdict.HOLDS
    assert result.verdict_text == "holds here"
    (pair,) = result.pairs
    assert (pair.a.mean, pair.b.mean) == (pytest.approx(120.0), pytest.approx(100.0))
    assert pair.ratio.ratio == pytest.approx(1.2)
    assert pair.difference_ci is not None
    assert pair.difference_ci.low > 0.0
    assert result.needed_n is None


def test_a_significant_change_the_other_way_contradicts() -> None:
    result = judge_claim(claim(), trials(SLOWER))
    assert result.verdict is ClaimVerdict.CONTRADICTED
    assert "significantly lower" in result.reason
    assert judge_claim(claim("lower"), trials(SLOWER)).verdict is ClaimVerdict.HOLDS


def test_not_significant_gives_the_iterations_needed_for_the_seeds_effect() -> None:
    seeded = claim(seed_value={"a": 2358, "b": 2350, "unit": "op/s"})
    result = judge_claim(seeded, trials(NOISY))
    assert result.verdict is ClaimVerdict.NOT_SIGNIFICANT
    # both cells have variance 100; the study's effect is 2358/2350 - 1 = 0.3404%, of the
    # observed STCS mean 100: delta 0.3404; n = 2 * 100 * (1.95996 + 0.84162)^2 / 0.3404^2
    assert result.needed_n == 13546
    assert "13546 iterations per cell" in result.reason


def test_without_a_seed_effect_the_claimed_size_is_powered_for() -> None:
    result = judge_claim(claim(size="at least 10% higher"), trials(NOISY))
    assert result.verdict is ClaimVerdict.NOT_SIGNIFICANT
    # delta = 10 (10% of 100), variance 100: n = 2 * 100 * 7.8489 / 100 = 15.7 -> 16
    assert result.needed_n == 16


def test_without_an_effect_or_a_size_no_n_is_given_and_the_reason_says_why() -> None:
    result = judge_claim(claim(), trials(NOISY))
    assert result.verdict is ClaimVerdict.NOT_SIGNIFICANT
    assert result.needed_n is None
    assert "no n can be given" in result.reason


def test_needed_n_is_the_normal_approximation() -> None:
    z = 1.959963984540054 + 0.8416212335729143
    assert needed_n(3.0, 4.0, 2.0, 0.05) == math.ceil(2 * 12.5 * z * z / 4.0)
    assert needed_n(3.0, 4.0, 0.0, 0.05) is None


def test_a_size_holds_only_when_the_ratios_interval_clears_it() -> None:
    assert judge_claim(claim(size="at least 10%"), trials(FASTER)).verdict is ClaimVerdict.HOLDS
    too_big = judge_claim(claim(size="at least 30% higher"), trials(FASTER))
    assert too_big.verdict is ClaimVerdict.CONTRADICTED
    assert "excludes the claimed size" in too_big.reason


def test_equal_within_a_band_holds_when_the_interval_is_inside_it() -> None:
    close = {"STCS": [100.0, 101.0, 99.0], "LCS": [100.5, 101.5, 99.5]}
    assert judge_claim(claim("equal", size="within 5%"), trials(close)).verdict is (
        ClaimVerdict.HOLDS
    )
    assert judge_claim(claim("equal", size="within 5%"), trials(FASTER)).verdict is (
        ClaimVerdict.CONTRADICTED
    )


def test_a_claim_without_a_test_is_not_testable_with_its_reason() -> None:
    untested = Claim(says="8 GB heap", source="seed 000, 4.2", not_testable="the study's hardware")
    result = judge_claim(untested, trials(FASTER))
    assert result.verdict is ClaimVerdict.NOT_TESTABLE
    assert result.reason == "the study's hardware"


def test_cells_missing_from_the_run_make_a_claim_not_testable() -> None:
    result = judge_claim(claim(), trials({"STCS": [1.0, 2.0]}))
    assert result.verdict is ClaimVerdict.NOT_TESTABLE
    assert "no finished trial" in result.reason


def test_one_iteration_per_cell_is_undetermined() -> None:
    result = judge_claim(claim(), trials({"STCS": [100.0], "LCS": [120.0]}))
    assert result.verdict is ClaimVerdict.UNDETERMINED
    assert "at least 2 iterations" in result.reason


def test_a_factor_claim_is_judged_on_every_matched_pair_with_holm() -> None:
    rows = trials(FASTER, {"workload": "write"}) + trials(NOISY, {"workload": "read"})
    result = judge_claim(claim(), rows)
    assert [(p.a_cell, p.b_cell) for p in result.pairs] == [
        ("table.compaction=LCS,workload=write", "table.compaction=STCS,workload=write"),
        ("table.compaction=LCS,workload=read", "table.compaction=STCS,workload=read"),
    ]
    assert result.verdict is ClaimVerdict.NOT_SIGNIFICANT
    assert result.reason.startswith("holds in 1 of 2 pairs")
    first, second = result.pairs
    assert first.p_value is not None
    assert first.p_value_adjusted is not None
    assert first.p_value_adjusted == pytest.approx(2 * first.p_value)  # Holm: smallest x 2
    assert second.p_value_adjusted == pytest.approx(second.p_value)


def test_claims_are_judged_in_order() -> None:
    results = judge_claims([claim(), claim("lower")], trials(FASTER), AnalysisOptions())
    assert [r.verdict for r in results] == [ClaimVerdict.HOLDS, ClaimVerdict.CONTRADICTED]


def test_when_the_run_had_the_iterations_the_reason_says_the_effect_is_unlikely() -> None:
    seeded = claim(seed_value={"a": 150, "b": 100})  # +50%: n = 2 * 100 * 7.85 / 2500 -> 2
    result = judge_claim(seeded, trials(NOISY))
    assert result.verdict is ClaimVerdict.NOT_SIGNIFICANT
    assert result.needed_n is None
    assert "this run had 3: a difference that large is unlikely here" in result.reason


def lww_trials(cells: dict[str, list[tuple[int, int]]]) -> list[TrialKpis]:
    """Cells named by their clock level, one trial per (lost, acknowledged) count."""
    out = []
    for level, counts in cells.items():
        cell = f"cluster.clock={level}"
        out += [
            TrialKpis(
                trial_id=f"{cell}/{i}",
                cell_id=cell,
                iteration=i,
                factors={"cluster.clock": level},
                kpis={
                    "lww_lost": float(lost),
                    "lww_acknowledged": float(acked),
                    "lww_lost_pct": 100.0 * lost / acked,
                },
            )
            for i, (lost, acked) in enumerate(counts, start=1)
        ]
    return out


def lww_claim(direction: str = "higher", **fields: object) -> Claim:
    return Claim.model_validate(
        {
            "says": "A node 500 ms behind loses updates that a node on time keeps",
            "source": "Cassandra's last-write-wins rule",
            "compare": {"a": {"cluster.clock": "n2-500ms"}, "b": {"cluster.clock": "on-time"}},
            "kpi": "lww_lost_pct",
            "direction": direction,
            **fields,
        }
    )


ALL_OR_NONE = {"n2-500ms": [(1000, 1000), (998, 998)], "on-time": [(0, 1000), (0, 999)]}


def test_every_trial_losing_all_against_none_holds_on_the_pooled_counts() -> None:
    result = judge_claim(lww_claim(), lww_trials(ALL_OR_NONE))
    assert result.verdict is ClaimVerdict.HOLDS
    (pair,) = result.pairs
    assert pair.pooled is not None
    assert (pair.pooled.a.hits, pair.pooled.a.n) == (1998, 1998)
    assert (pair.pooled.b.hits, pair.pooled.b.n) == (0, 1999)
    assert pair.p_value == pair.pooled.p_value < 1e-100
    assert pair.difference_ci is not None
    assert pair.difference_ci.low > 99.0
    assert "Fisher's exact" in result.reason
    assert "1,998 of 1,998 against 0 of 1,999 lww_acknowledged" in result.reason


def test_the_pooled_counts_contradict_the_wrong_direction() -> None:
    result = judge_claim(lww_claim("lower"), lww_trials(ALL_OR_NONE))
    assert result.verdict is ClaimVerdict.CONTRADICTED
    assert result.reason.startswith("significantly higher (Fisher's exact")


def test_a_size_is_checked_against_the_ratios_bounds_from_the_counts() -> None:
    half = {"n2-500ms": [(600, 1000)] * 2, "on-time": [(500, 1000)] * 2}
    result = judge_claim(lww_claim(size="at least 50% higher"), lww_trials(half))
    assert result.verdict is ClaimVerdict.CONTRADICTED  # 1,200 of 2,000 against 1,000: +30% at most
    assert "exclude the claimed size" in result.reason
    assert judge_claim(lww_claim(size="at least 10% higher"), lww_trials(ALL_OR_NONE)).verdict is (
        ClaimVerdict.HOLDS
    )


def test_few_counted_updates_are_not_significant_and_say_what_would_tell() -> None:
    few = {"n2-500ms": [(1, 3), (1, 3)], "on-time": [(0, 3), (0, 3)]}
    result = judge_claim(lww_claim(), lww_trials(few))
    assert result.verdict is ClaimVerdict.NOT_SIGNIFICANT
    assert result.needed_n is None
    assert "more lww_acknowledged per trial would tell" in result.reason


def test_trials_that_vary_keep_welchs_test_over_trials() -> None:
    varying = {"n2-500ms": [(900, 1000), (1000, 1000)], "on-time": [(0, 1000), (0, 1000)]}
    result = judge_claim(lww_claim(), lww_trials(varying))
    (pair,) = result.pairs
    assert pair.pooled is None
    assert "Fisher" not in result.reason


def test_a_kpi_that_is_no_share_of_counts_stays_undetermined_without_variance() -> None:
    flat = {"STCS": [100.0, 100.0], "LCS": [120.0, 120.0]}
    result = judge_claim(claim(), trials(flat))
    assert result.verdict is ClaimVerdict.UNDETERMINED
    assert result.pairs[0].pooled is None


def test_one_trial_per_cell_is_not_pooled() -> None:
    one = {"n2-500ms": [(1000, 1000)], "on-time": [(0, 1000)]}
    assert judge_claim(lww_claim(), lww_trials(one)).verdict is ClaimVerdict.UNDETERMINED
