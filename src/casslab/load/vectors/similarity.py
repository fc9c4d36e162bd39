"""Cassandra's vector similarity functions and exact nearest neighbours by brute force.

Cassandra 5.0's SAI vector index takes ``similarity_function`` COSINE (its default),
DOT_PRODUCT or EUCLIDEAN; the nearest neighbours of a query are the base vectors of the
highest similarity (for EUCLIDEAN: the smallest distance). Pure numpy, no I/O.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from casslab.load.vectors.dataset_terms import Similarity

__all__ = ["Floats", "Ints", "Similarity", "nearest", "normalized", "scores"]

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int32]

# queries scored against the whole base at once, per block (bounds the score matrix)
_BLOCK = 256


def normalized(vectors: Floats) -> Floats:
    """Each row scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out: Floats = (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
    return out


def scores(base: Floats, queries: Floats, similarity: Similarity) -> npt.NDArray[np.float64]:
    """Higher is nearer: ``scores[q, i]`` ranks base vector ``i`` for query ``q``."""
    b = base.astype(np.float64)
    q = queries.astype(np.float64)
    if similarity is Similarity.COSINE:
        b, q = normalized(base).astype(np.float64), normalized(queries).astype(np.float64)
    dots = q @ b.T
    if similarity is not Similarity.EUCLIDEAN:
        return dots
    # -|q - b|^2 = 2 q.b - |b|^2 - |q|^2
    out: npt.NDArray[np.float64] = (
        2 * dots - (b * b).sum(axis=1)[None, :] - (q * q).sum(axis=1)[:, None]
    )
    return out


def nearest(base: Floats, queries: Floats, k: int, similarity: Similarity) -> Ints:
    """The ``k`` nearest base rows of each query, nearest first (ties: the lower row),
    as an ``(n_queries, k)`` array of row numbers."""
    if not 1 <= k <= len(base):
        raise ValueError(f"k={k} must be between 1 and the {len(base)} base vectors")
    out = np.empty((len(queries), k), dtype=np.int32)
    for start in range(0, len(queries), _BLOCK):
        s = scores(base, queries[start : start + _BLOCK], similarity)
        top = np.argpartition(-s, k - 1, axis=1)[:, :k] if k < len(base) else None
        for j, row in enumerate(s):
            cand = top[j] if top is not None else np.arange(len(base))
            # nearest first; among equal scores the lower row number
            order = np.lexsort((cand, -row[cand]))
            out[start + j] = cand[order]
    return out
