"""Exact nearest neighbours against a second brute force written plainly (per pair)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from casslab.load.vectors.similarity import Similarity, nearest
from casslab.load.vectors.synthetic import clustered


def _plain(base: list[list[float]], q: list[float], k: int, sim: Similarity) -> list[int]:
    def score(b: list[float]) -> float:
        dot = sum(x * y for x, y in zip(q, b, strict=True))
        if sim is Similarity.DOT_PRODUCT:
            return dot
        if sim is Similarity.COSINE:
            return dot / (math.hypot(*q) * math.hypot(*b))
        return -sum((x - y) ** 2 for x, y in zip(q, b, strict=True))

    return sorted(range(len(base)), key=lambda i: (-score(base[i]), i))[:k]


@pytest.mark.parametrize("sim", list(Similarity))
def test_generated_ground_truth_matches_a_second_brute_force(sim: Similarity) -> None:
    data = clustered(count=300, dimension=8, queries=20, depth=10, similarity=sim, seed=7)
    assert data.base.shape == (300, 8)
    assert data.queries.shape == (20, 8)
    assert data.neighbors.shape == (20, 10)
    base = data.base.astype(float).tolist()
    for q, row in zip(data.queries.astype(float).tolist(), data.neighbors, strict=True):
        assert list(row) == _plain(base, q, 10, sim)


def test_the_same_seed_gives_the_same_dataset_and_another_seed_another() -> None:
    a = clustered(count=50, dimension=4, queries=5, seed=3)
    b = clustered(count=50, dimension=4, queries=5, seed=3)
    c = clustered(count=50, dimension=4, queries=5, seed=4)
    assert np.array_equal(a.base, b.base)
    assert np.array_equal(a.neighbors, b.neighbors)
    assert not np.array_equal(a.base, c.base)


def test_cosine_and_dot_vectors_have_length_one() -> None:
    for sim in (Similarity.COSINE, Similarity.DOT_PRODUCT):
        data = clustered(count=40, dimension=5, queries=3, similarity=sim)
        assert np.allclose(np.linalg.norm(data.base, axis=1), 1, atol=1e-5)


def test_nearest_by_hand() -> None:
    base = np.array([[0, 0], [1, 0], [3, 0], [0, 2]], dtype=np.float32)
    q = np.array([[0.9, 0.1]], dtype=np.float32)
    assert nearest(base, q, 4, Similarity.EUCLIDEAN).tolist() == [[1, 0, 3, 2]]
    assert nearest(base, q, 2, Similarity.DOT_PRODUCT).tolist() == [[2, 1]]
    # cosine: [1,0] and [3,0] point the same way; the lower row first
    assert nearest(base, q, 2, Similarity.COSINE).tolist() == [[1, 2]]
    with pytest.raises(ValueError, match="k=5 must be between 1 and the 4"):
        nearest(base, q, 5, Similarity.COSINE)
