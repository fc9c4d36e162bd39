"""Wilson's interval against values worked out by hand (z = 1.959964)."""

from __future__ import annotations

import pytest

from casslab.analysis.proportion import wilson


def test_none_of_ten_still_leaves_room_for_a_few() -> None:
    zero = wilson(0, 10)
    assert (zero.fraction, zero.low) == (0.0, 0.0)
    assert zero.high == pytest.approx(0.2775, abs=1e-4)  # z^2 / (n + z^2)


def test_half_is_symmetric_and_all_mirrors_none() -> None:
    half = wilson(50, 100)
    assert half.low == pytest.approx(0.4038, abs=1e-4)
    assert half.high == pytest.approx(0.5962, abs=1e-4)
    every = wilson(10, 10)
    assert (every.low, every.high) == (pytest.approx(1 - 0.2775, abs=1e-4), 1.0)


def test_impossible_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="0 <= hits <= n"):
        wilson(11, 10)
