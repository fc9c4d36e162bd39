"""Paired rounds' ratio on literal rounds: the geometric mean, its interval by hand, the
rounds left out and the line a bench prints."""

from __future__ import annotations

import math

import pytest

from casslab.analysis.paired_ratio import paired_ratio


def test_the_geometric_mean_and_its_t_interval() -> None:
    # log ratios ln 1.1, ln 1.0, ln 0.9: mean -0.00017, sd 0.10036; t(0.975, 2) = 4.3027
    result = paired_ratio([100.0, 200.0, 300.0], [110.0, 200.0, 270.0])
    logs = [math.log(1.1), 0.0, math.log(0.9)]
    mean = sum(logs) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / 2)
    half = 4.302652729911275 * sd / math.sqrt(3)
    assert result.per_round == pytest.approx((1.1, 1.0, 0.9))
    assert result.geometric_mean == pytest.approx(math.exp(mean))
    assert result.low == pytest.approx(math.exp(mean - half))
    assert result.high == pytest.approx(math.exp(mean + half))
    assert result.line("QPS") == (
        f"QPS: per round 1.100, 1.000, 0.900; geometric mean {math.exp(mean):.3f} "
        f"[{math.exp(mean - half):.3f}, {math.exp(mean + half):.3f}]"
    )


def test_a_round_without_a_positive_pair_is_left_out() -> None:
    result = paired_ratio([0.0, 50.0, 40.0], [10.0, 50.0, 0.0])
    assert result.per_round == (1.0,)
    assert result.geometric_mean is None
    assert result.line("p99") == "p99: per round 1.000 (an interval needs 2 rounds)"


def test_rounds_must_pair() -> None:
    with pytest.raises(ValueError, match="shorter"):
        paired_ratio([1.0, 2.0], [1.0])
