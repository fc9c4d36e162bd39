"""Recall@k: the share of a query's ``k`` true nearest neighbours among the rows an ANN
search returned (the measure of ann-benchmarks and NoSQLBench). Pure."""

from __future__ import annotations

from collections.abc import Sequence


def recall_at_k(found: Sequence[int], truth: Sequence[int], k: int) -> float:
    """``|found[:k] ∩ truth[:k]| / k``; duplicates in ``found`` count once."""
    if k < 1:
        raise ValueError(f"recall@k needs k >= 1, got {k}")
    if len(truth) < k:
        raise ValueError(f"recall@{k} needs {k} true neighbours, the ground truth has {len(truth)}")
    return len(set(found[:k]) & set(truth[:k])) / k


def recall_percentile(hits_by_count: Sequence[int], k: int, pct: float) -> float:
    """The ``pct``-th percentile of per-query recall, from how many queries found 0, 1, ...,
    ``k`` true neighbours (``hits_by_count[h]``): the lowest recall ``r`` such that at least
    ``pct`` % of the queries have a recall <= ``r`` (nearest-rank)."""
    total = sum(hits_by_count)
    if total == 0:
        raise ValueError("no queries: no recall percentile")
    rank = max(1, -(-pct * total // 100))  # ceil, at least the first query
    seen = 0
    for hits, n in enumerate(hits_by_count):
        seen += n
        if seen >= rank:
            return hits / k
    return (len(hits_by_count) - 1) / k
