"""Recall@k on hand-made cases."""

from __future__ import annotations

import pytest

from casslab.load.vectors.recall import recall_at_k


@pytest.mark.parametrize(
    ("found", "truth", "k", "want"),
    [
        ([3, 1, 2], [1, 2, 3], 3, 1.0),  # order does not matter
        ([3, 9, 8], [1, 2, 3], 3, 1 / 3),
        ([7, 8, 9], [1, 2, 3], 3, 0.0),
        ([1, 1, 1], [1, 2, 3], 3, 1 / 3),  # a duplicate counts once
        ([2, 5], [1, 2, 3, 4], 2, 0.5),  # only the first k of each
        ([1], [1, 2, 3], 3, 1 / 3),  # fewer rows than k returned
    ],
)
def test_recall_at_k_by_hand(found: list[int], truth: list[int], k: int, want: float) -> None:
    assert recall_at_k(found, truth, k) == pytest.approx(want)


def test_k_deeper_than_the_ground_truth_is_refused() -> None:
    with pytest.raises(ValueError, match="needs 5 true neighbours, the ground truth has 3"):
        recall_at_k([1], [1, 2, 3], 5)
