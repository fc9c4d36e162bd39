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
