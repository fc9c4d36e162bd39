"""Which nodes a node counts in its ring, from its own tables' rows (pure)."""

from __future__ import annotations

from casslab.cluster.ring_view import LocalRow, PeerRow, members


def test_a_node_counts_itself_once_bootstrapped_and_the_peers_with_tokens() -> None:
    local = LocalRow(address="127.0.0.1", bootstrapped="COMPLETED", tokens=frozenset({"-9"}))
    peers = [
        PeerRow(peer="127.0.0.2", tokens=frozenset({"3"})),
        PeerRow(peer="127.0.0.3"),  # known (joining), no tokens yet: not a member
    ]
    assert members(local, peers) == {"127.0.0.1", "127.0.0.2"}


def test_a_node_still_bootstrapping_does_not_count_itself() -> None:
    local = LocalRow(address="127.0.0.1", bootstrapped="IN_PROGRESS", tokens=frozenset({"1"}))
    assert members(local, []) == set()
    assert members(LocalRow(address="127.0.0.1", bootstrapped="COMPLETED"), []) == set()
