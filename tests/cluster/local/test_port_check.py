"""The port check before a local cluster starts: a busy port is named with the process that
listens on that address, not with another node's listener on the same port number (every
node listens on port 7000 and 9042 of its own address)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster.local import launch
from casslab.cluster.model import Node
from casslab.errors import ClusterError

LISTEN = """
import socket, sys
s = socket.socket(); s.bind(("127.0.172.1", int(sys.argv[1]))); s.listen(1)
print("ready", flush=True); sys.stdin.read()
"""


@pytest.fixture
def two_listeners() -> Iterator[tuple[int, int]]:
    """This process on 127.0.171.1 and a child on 127.0.172.1, at one port number; the port
    and the child's PID."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as mine:
        mine.bind(("127.0.171.1", 0))
        mine.listen(1)
        port = mine.getsockname()[1]
        child = subprocess.Popen(
            [sys.executable, "-c", LISTEN, str(port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready"
            yield port, child.pid
        finally:
            child.kill()
            child.wait()


def test_a_busy_port_names_the_listener_on_its_own_address(
    two_listeners: tuple[int, int], tmp_path: Path
) -> None:
    port, child = two_listeners
    for address, holder in (("127.0.171.1", os.getpid()), ("127.0.172.1", child)):
        node = Node(
            number=1,
            address=address,
            native_port=port,
            storage_port=port + 1,
            jmx_port=port + 2,
            directory=tmp_path / "node1",
        )
        with pytest.raises(ClusterError) as caught:
            launch.check_ports([node])
        assert f"CQL port {address}:{port} is busy (held by pid {holder}," in str(caught.value)
