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


def tokens_by_datacenter(datacenters: list[str | None], num_tokens: int = 1) -> list[list[int]]:
    """Tokens for nodes in datacenters (``datacenters[i]`` is node i's): each datacenter
    its own evenly spaced ring, as NetworkTopologyStrategy places replicas per datacenter,
    the k-th datacenter's tokens shifted by k so no two nodes share a token."""
    order = list(dict.fromkeys(datacenters))
    out: list[list[int]] = [[] for _ in datacenters]
    for shift, name in enumerate(order):
        members = [i for i, dc in enumerate(datacenters) if dc == name]
        for index, tokens in zip(members, initial_tokens(len(members), num_tokens), strict=True):
            out[index] = [token + shift for token in tokens]
    return out
