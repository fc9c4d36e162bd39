"""Which nodes a node counts in its ring, from its own tables' rows, and the peers its log
saw UP and the nodes `nodetool status` shows UN (pure)."""

from __future__ import annotations

from casslab.cluster.ring_view import (
    LocalRow,
    PeerRow,
    members,
    peers_logged_up,
    ring_by_nodetool,
)


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


LOG = """\
INFO  [GossipStage:1] 15:00:01 Gossiper - Node /10.9.0.2:7000 is now part of the cluster
INFO  [GossipStage:1] 15:00:01 Gossiper - InetAddress /10.9.0.2:7000 is now UP
INFO  [GossipStage:1] 15:00:02 Gossiper - InetAddress /10.9.0.3 is now UP
INFO  [GossipStage:1] 15:00:03 Gossiper - InetAddress /10.9.0.4:7000 is now DOWN
"""

STATUS = """\
Datacenter: dc1
===============
Status=Up/Down
|/ State=Normal/Leaving/Joining/Moving
--  Address   Load       Tokens  Owns (effective)  Host ID  Rack
UN  10.9.0.1  70.2 KiB   16      66.7%             a1       rack1
UJ  10.9.0.2  50.1 KiB   16      ?                 a2       rack1
DN  10.9.0.3  60.3 KiB   16      66.7%             a3       rack1
UN  10.9.0.4  65.0 KiB   16      66.7%             a4       rack1
"""


def test_the_peers_a_log_saw_up_with_or_without_a_port() -> None:
    assert peers_logged_up(LOG) == {"10.9.0.2", "10.9.0.3"}  # DOWN and "part of" do not count
    assert peers_logged_up("") == set()


def test_nodetool_status_counts_only_up_and_normal_nodes() -> None:
    assert ring_by_nodetool(STATUS) == {"10.9.0.1", "10.9.0.4"}  # joining and down left out
