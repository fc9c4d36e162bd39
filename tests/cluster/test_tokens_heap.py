from __future__ import annotations

import pytest

from casslab.cluster.heap import default_heap
from casslab.cluster.tokens import MIN_TOKEN, initial_tokens

GIB = 1024**3


@pytest.mark.parametrize(
    ("nodes", "num_tokens", "expected"),
    [
        (1, 1, [[MIN_TOKEN]]),
        (2, 1, [[MIN_TOKEN], [0]]),
        (4, 1, [[MIN_TOKEN], [-(2**62)], [0], [2**62]]),
        (2, 2, [[MIN_TOKEN, 0], [-(2**62), 2**62]]),
    ],
)
def test_initial_tokens_are_evenly_spaced_and_interleaved(
    nodes: int, num_tokens: int, expected: list[list[int]]
) -> None:
    assert initial_tokens(nodes, num_tokens) == expected


def test_initial_tokens_are_distinct_and_in_range() -> None:
    tokens = [t for node in initial_tokens(3, 16) for t in node]
    assert len(set(tokens)) == 48
    assert all(-(2**63) <= t < 2**63 for t in tokens)


@pytest.mark.parametrize(
    ("available", "nodes", "heap"),
    [
        (23 * GIB, 1, "2048M"),
        (23 * GIB, 3, "2048M"),
        (8 * GIB, 3, "768M"),
        (4 * GIB, 1, "1536M"),
        (2 * GIB, 1, "512M"),
    ],
)
def test_default_heap_fits_free_memory(available: int, nodes: int, heap: str) -> None:
    assert default_heap(available, nodes) == heap


def test_default_heap_refuses_when_even_minimum_does_not_fit() -> None:
    with pytest.raises(ValueError, match="3 node"):
        default_heap(1 * GIB, 3)


def test_each_datacenter_has_its_own_even_ring_and_no_token_is_shared() -> None:
    from casslab.cluster.tokens import tokens_by_datacenter

    tokens = tokens_by_datacenter(["dc1", "dc1", "dc2", "dc3"], num_tokens=2)
    assert tokens[:2] == initial_tokens(2, 2)
    assert tokens[2] == [t + 1 for t in initial_tokens(1, 2)[0]]
    assert tokens[3] == [t + 2 for t in initial_tokens(1, 2)[0]]
    flat = [t for node in tokens for t in node]
    assert len(set(flat)) == len(flat)
