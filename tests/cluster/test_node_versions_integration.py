"""A cluster of two versions from the start, on real nodes: ``casslab up --nodes 2
--version 5.0.9 --node-version 1=5.0.8`` (512M heaps) runs node 1 on 5.0.8 and node 2 on
5.0.9, as each node's ``release_version`` says over CQL (``system.local`` of itself,
``system.peers`` of the other), and ``casslab status`` shows each node's version."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_entry import casslab
from jit import UP_LIGHT

pytestmark = pytest.mark.integration

NAME = "mixed2"
PLACE = ["--heap", "512M", "--base-address", "127.0.251.1", "--jmx-port-base", "9950", *UP_LIGHT]


PEERS = "SELECT peer, release_version FROM system.peers"


def _line_of(address: str, text: str) -> str:
    [line] = [line for line in text.splitlines() if address in line]
    return line


def _cql(home: Path, node: int, query: str) -> str:
    said = casslab(home, "cqlsh", str(node), "--name", NAME, "-e", query)
    assert said.returncode == 0, said.stdout + said.stderr
    return said.stdout


def test_two_versions_from_the_start(tmp_path: Path) -> None:
    up = casslab(
        tmp_path, "up", "--nodes", "2", "--name", NAME, "--version", "5.0.9",
        "--node-version", "1=5.0.8", *PLACE, "--timeout", "300",
    )  # fmt: skip
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        assert "(node 1 on 5.0.8)" in up.stdout
        assert "5.0.8" in _cql(tmp_path, 1, "SELECT release_version FROM system.local")
        assert "5.0.9" in _cql(tmp_path, 2, "SELECT release_version FROM system.local")
        peers_of_1 = _line_of("127.0.251.2", _cql(tmp_path, 1, PEERS))
        assert "5.0.9" in peers_of_1
        peers_of_2 = _line_of("127.0.251.1", _cql(tmp_path, 2, PEERS))
        assert "5.0.8" in peers_of_2
        status = casslab(tmp_path, "status", "--name", NAME)
        assert status.returncode == 0, status.stdout + status.stderr
        assert "5.0.8" in _line_of("127.0.251.1:9042", status.stdout)
        assert "5.0.9" in _line_of("127.0.251.2:9042", status.stdout)
    finally:
        casslab(tmp_path, "down", "--remove", "--name", NAME)
