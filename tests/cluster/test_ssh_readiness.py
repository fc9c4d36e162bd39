"""What the ssh backend's readiness reads from a node's log and from ``nodetool status``."""

from __future__ import annotations

from casslab.cluster.ssh.readiness import peers_logged_up, ring_by_nodetool

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
