"""Recall records: percentiles over per-query hit counts and merges, worked out by hand."""

from __future__ import annotations

import pytest

from casslab.engine_contract.recall import merged_recall, recall_percentile, recall_stats


def test_recall_percentiles_by_nearest_rank() -> None:
    # k = 10; 100 queries: 3 found 7, 2 found 8, 95 found 10
    hits = [0] * 7 + [3, 2, 0, 95]
    assert recall_percentile(hits, 10, 1) == 0.7
    assert recall_percentile(hits, 10, 3) == 0.7
    assert recall_percentile(hits, 10, 4) == 0.8
    assert recall_percentile(hits, 10, 5) == 0.8
    assert recall_percentile(hits, 10, 6) == 1.0
    with pytest.raises(ValueError, match="no queries"):
        recall_percentile([0, 0], 1, 5)


def test_recall_records_merge_by_summing_queries_by_hits() -> None:
    a = recall_stats([0, 1, 3])  # k = 2: 1 query found 1, 3 found both
    b = recall_stats([1, 0, 5])
    assert a is not None
    assert a.mean == pytest.approx(7 / 8)
    assert (a.p1, a.p5) == (0.5, 0.5)
    merged = merged_recall([a, None, b])
    assert merged is not None
    assert merged.queries_by_hits == [1, 1, 8]
    assert merged.queries == 10
    assert merged.mean == pytest.approx(17 / 20)
    assert (merged.p5, merged.p1) == (0.0, 0.0)
    assert merged_recall([None, None]) is None
    assert recall_stats([3]) is None
    assert recall_stats([0, 0, 0]) is None, "no query: no recall"
