"""The token a new node takes: halfway along the ring's largest range (pure)."""

from __future__ import annotations

import pytest

from casslab.cluster.local.grow import split_token
from casslab.cluster.tokens import MIN_TOKEN, RING, initial_tokens
from casslab.errors import ClusterError


def test_a_third_node_halves_a_two_node_rings_range() -> None:
    two = [t for tokens in initial_tokens(2) for t in tokens]
    assert two == [MIN_TOKEN, 0]
    assert split_token(two) == 2**62  # (0, 2^63) wraps to MIN_TOKEN: its middle


def test_the_largest_range_wins_and_the_ring_wraps() -> None:
    assert split_token([-100, 0, 100]) == (100 + (RING - 200) // 2 - MIN_TOKEN) % RING + MIN_TOKEN
    assert split_token([MIN_TOKEN, -(2**62), 0, 2**62]) == 2**62 + 2**61
    assert split_token([MIN_TOKEN, 2**62]) == -(2**61)  # the first range is the larger
    with pytest.raises(ClusterError, match="no tokens"):
        split_token([])
