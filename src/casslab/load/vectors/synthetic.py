"""Synthetic clustered vector datasets with exact ground truth, for tests and for users
without a dataset on disk.

Base and query vectors are drawn around ``clusters`` centres (Gaussian centres, Gaussian
spread ``spread`` around them), so that nearest neighbours are meaningful as in real
embeddings rather than uniform noise, where every point is about as far as every other.
The ground truth is computed by brute force (:func:`similarity.nearest`). The same
arguments give the same dataset (seeded numpy ``Generator``). Pure: arrays in memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from casslab.load.vectors.similarity import Floats, Ints, Similarity, nearest, normalized


@dataclass(frozen=True)
class VectorDataset:
    """Base vectors (row i is inserted as key i + 1), query vectors, and for each query its
    ``depth`` nearest base rows, nearest first."""

    base: Floats
    queries: Floats
    neighbors: Ints
    similarity: Similarity

    @property
    def dimension(self) -> int:
        return int(self.base.shape[1])

    @property
    def depth(self) -> int:
        return int(self.neighbors.shape[1])


def clustered(
    *,
    count: int,
    dimension: int,
    queries: int = 1000,
    clusters: int = 64,
    spread: float = 0.15,
    depth: int = 100,
    similarity: Similarity = Similarity.COSINE,
    seed: int = 1,
) -> VectorDataset:
    """``count`` base and ``queries`` query vectors of ``dimension``, with ground truth
    ``depth`` deep. For DOT_PRODUCT (and COSINE) the vectors are of length 1, as
    Cassandra's DOT_PRODUCT expects."""
    if count < 1 or dimension < 1 or queries < 1 or clusters < 1:
        raise ValueError(
            f"count={count}, dimension={dimension}, queries={queries}, clusters={clusters}: "
            "each must be >= 1"
        )
    depth = min(depth, count)
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dimension))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)

    def around(n: int) -> Floats:
        which = rng.integers(0, clusters, size=n)
        points = centres[which] + rng.normal(0, spread, size=(n, dimension)) / np.sqrt(dimension)
        out: Floats = points.astype(np.float32)
        return out

    base, query = around(count), around(queries)
    if similarity is not Similarity.EUCLIDEAN:
        base, query = normalized(base), normalized(query)
    return VectorDataset(
        base=base,
        queries=query,
        neighbors=nearest(base, query, depth, similarity),
        similarity=similarity,
    )
