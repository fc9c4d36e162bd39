"""Pre-assigned, evenly spaced Murmur3 tokens so a new cluster starts without bootstrap."""

from __future__ import annotations

MIN_TOKEN = -(2**63)
RING = 2**64


def initial_tokens(nodes: int, num_tokens: int = 1) -> list[list[int]]:
    """Tokens for each node: ``nodes * num_tokens`` evenly spaced positions, interleaved so
    each node owns an equal share of the ring."""
    if nodes < 1 or num_tokens < 1:
        raise ValueError("nodes and num_tokens must be >= 1")
    total = nodes * num_tokens
    return [
        [MIN_TOKEN + (RING * (slot * nodes + node)) // total for slot in range(num_tokens)]
        for node in range(nodes)
    ]
