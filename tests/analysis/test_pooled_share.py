"""Two shares on their pooled counts: Fisher's exact p and Newcombe's interval against values
worked out by hand and from Newcombe's paper."""

from __future__ import annotations

import pytest

from casslab.analysis.pooled_share import newcombe, pooled_shares
from casslab.analysis.proportion import wilson


def test_newcombe_matches_the_papers_worked_example() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, example (a): 56/70 - 48/80, method 10
    low, high = newcombe(wilson(56, 70), wilson(48, 80))
    assert (low, high) == (pytest.approx(0.0524, abs=1e-4), pytest.approx(0.3339, abs=1e-4))


def test_five_of_five_against_none_of_five_is_two_tables_in_252() -> None:
    pooled = pooled_shares("lww_lost", "lww_acknowledged", [(2, 2), (3, 3)], [(0, 2), (0, 3)])
    assert (pooled.a.hits, pooled.a.n, pooled.b.hits, pooled.b.n) == (5, 5, 0, 5)
    assert (pooled.trials_a, pooled.trials_b) == (2, 2)
    # the two most extreme tables of 10 items, 5 hits, 5 in a: each 1 / C(10, 5)
    assert pooled.p_value == pytest.approx(2 / 252)
    assert pooled.difference_points == 100.0
    assert pooled.difference_ci.low > 0.0
    assert pooled.difference_ci.high == 100.0
    assert pooled.ratio_high is None  # b counted no hit: a/b has no upper bound
    assert pooled.ratio_low == pytest.approx(wilson(5, 5).low / wilson(0, 5).high)


def test_equal_counts_are_not_told_apart() -> None:
    pooled = pooled_shares("lww_lost", "lww_acknowledged", [(10, 100)], [(10, 100)])
    assert pooled.p_value == pytest.approx(1.0)
    assert pooled.difference_ci.low < 0.0 < pooled.difference_ci.high
    assert pooled.ratio_high is not None
    assert pooled.ratio_low < 1.0 < pooled.ratio_high
