"""What a starting node's log says (cluster/local/launch.py, cluster/wait.py): CQL
listening and the peers it saw UP, read incrementally from a growing file."""

from __future__ import annotations

import time
from pathlib import Path

from casslab.cluster.local import launch
from casslab.cluster.model import Node
from casslab.cluster.wait import LogWatcher

UP = (
    "INFO  [GossipStage:1] 2026-11-27 21:59:14,846 Gossiper.java:1492 - "
    "InetAddress /{}:7000 is now UP\n"
)
CQL = (
    "INFO  [main] 2026-11-27 21:59:14,517 PipelineConfigurator.java:148 - Starting listening "
    "for CQL clients on /127.0.0.1:9042 (unencrypted)...\n"
)


def _node(tmp_path: Path, number: int) -> Node:
    return Node(
        number=number,
        address=f"127.0.0.{number}",
        native_port=9042,
        storage_port=7000,
        jmx_port=7199 + number,
        directory=tmp_path / f"node{number}",
    )


def test_watcher_returns_each_complete_line_once(tmp_path: Path) -> None:
    log = tmp_path / "system.log"
    watcher = LogWatcher(log)
    assert watcher.new_lines() == []  # absent file
    log.write_text("one\ntw")
    assert watcher.new_lines() == ["one"]
    with log.open("a") as handle:
        handle.write("o\nthree\n")
    assert watcher.new_lines() == ["two", "three"]
    assert watcher.new_lines() == []


def test_start_log_sees_listening_and_peers_up(tmp_path: Path) -> None:
    log = tmp_path / "system.log"
    log.write_text(UP.format("127.0.0.2") + "INFO noise InetAddress /127.0.0.9 is down\n")
    start = launch._StartLog(LogWatcher(log))
    start.read()
    assert (start.listening, start.peers_up) == (False, {"127.0.0.2"})
    with log.open("a") as handle:
        handle.write(CQL + UP.format("127.0.0.3"))
    start.read()
    assert (start.listening, start.peers_up) == (True, {"127.0.0.2", "127.0.0.3"})


def test_peers_logged_up_returns_once_every_node_saw_every_other(tmp_path: Path) -> None:
    nodes = [_node(tmp_path, n) for n in (1, 2)]
    logs = {}
    for node in nodes:
        path = tmp_path / f"{node.number}.log"
        other = "127.0.0.2" if node.number == 1 else "127.0.0.1"
        path.write_text(UP.format(other))
        logs[node.number] = launch._StartLog(LogWatcher(path))
    started = time.monotonic()
    launch._wait_peers_logged_up(nodes, logs, deadline=started + 30)
    assert time.monotonic() - started < 1.0


def test_peers_logged_up_gives_up_at_the_deadline(tmp_path: Path) -> None:
    """A log that never names a peer (another version's wording) does not block: nodetool
    decides after the limit or the deadline, whichever comes first."""
    nodes = [_node(tmp_path, n) for n in (1, 2)]
    logs = {n.number: launch._StartLog(LogWatcher(tmp_path / f"{n.number}.log")) for n in nodes}
    started = time.monotonic()
    launch._wait_peers_logged_up(nodes, logs, deadline=started + 0.5)
    assert 0.4 < time.monotonic() - started < 1.5
