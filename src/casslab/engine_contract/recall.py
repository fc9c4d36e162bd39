"""The arithmetic of the engine's recall records (:class:`RecallStats`): percentiles of
per-query recall from queries counted by hits, and the merge of several records (clients,
intervals, a window of a trial) by summing those counts. Exact, and the same as the
engine's own (``engine/src/stats.rs``). Pure."""

from __future__ import annotations

from collections.abc import Sequence

from casslab.engine_contract.engine_records import RecallStats


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


def recall_stats(queries_by_hits: Sequence[int]) -> RecallStats | None:
    """The engine's recall record from queries counted by hits (``[h]``: queries that found
    ``h`` of their k true neighbours); None when there is no k (no recall counted) or no
    query (an interval without ANN queries has no recall, not a recall of 0)."""
    k = len(queries_by_hits) - 1
    queries = sum(queries_by_hits)
    if k < 1 or queries == 0:
        return None
    found = sum(h * n for h, n in enumerate(queries_by_hits))
    return RecallStats(
        k=k,
        queries=queries,
        mean=found / (queries * k),
        p5=recall_percentile(queries_by_hits, k, 5),
        p1=recall_percentile(queries_by_hits, k, 1),
        queries_by_hits=list(queries_by_hits),
    )


def merged_recall(parts: Sequence[RecallStats | None]) -> RecallStats | None:
    """The recall of several clients' (or intervals') queries: their counts by hits
    summed, the statistics read again (exact, as the engine reads its own)."""
    counted = [p.queries_by_hits for p in parts if p is not None]
    if not counted:
        return None
    width = max(len(c) for c in counted)
    return recall_stats([sum(c[h] for c in counted if h < len(c)) for h in range(width)])
