"""A stopped process is gone only when its last thread is: a killed many-threaded
process's main thread turns zombie first, and its other threads still hold its sockets
(a JVM's ports stayed busy for a tenth of a second after `destroy` returned, and the next
cluster on the same ports failed to start)."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap

from casslab.cluster.processes import create_time, stop_group
from casslab.pids import alive

CHILD = textwrap.dedent(
    """
    import socket, sys, threading, time
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    for _ in range(200):
        threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
    print(server.getsockname()[1], flush=True)
    time.sleep(600)
    """
)


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_a_killed_process_is_alive_until_its_last_thread_has_gone() -> None:
    for _ in range(5):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD],
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            assert child.stdout is not None
            port = int(child.stdout.readline())
            started = create_time(child.pid)
            assert alive(child.pid, started)
            stop_group(child.pid, started, deadline_s=0.0)  # SIGTERM, SIGKILL at once
            assert not alive(child.pid, started)
            assert _free(port), "the stopped process still held its listening socket"
        finally:
            child.kill()
            child.wait()
