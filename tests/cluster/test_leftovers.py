"""casslab.cluster.local.launch.stop_leftovers: the JVMs of a cluster directory its state
does not record are stopped as the caller asks, at once for a directory deleted next (a
graceful stop there cost a drain and flush of some 5 s a node, one node after another)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from casslab.cluster.local.launch import leftover_pids, stop_leftovers

# one process, the leader of its group, that ignores SIGTERM, with the node's storage
# directory on its command line as casslab gives it to a Cassandra JVM; it forks nothing,
# as a shell would (a child between its fork and its exec has the same command line, and
# was found as a second leftover on a busy machine)
STUBBORN = (
    "import pathlib, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "pathlib.Path(sys.argv[1]).touch(); time.sleep(60)"
)


def start(directory: Path, ready: Path) -> subprocess.Popen[bytes]:
    storage = f"-Dcassandra.storagedir={directory}/node1"
    proc = subprocess.Popen(
        [sys.executable, "-c", STUBBORN, str(ready), storage], start_new_session=True
    )
    deadline = time.monotonic() + 10
    while not ready.exists():
        assert time.monotonic() < deadline, "the shell did not start"
        time.sleep(0.02)
    return proc


@pytest.mark.parametrize(("deadline_s", "at_least_s"), [(0.0, 0.0), (1.5, 1.5)])
def test_leftovers_get_the_grace_asked_and_no_more(
    tmp_path: Path, deadline_s: float, at_least_s: float
) -> None:
    directory = tmp_path / "cluster"
    proc = start(directory, tmp_path / "ready")
    try:
        assert leftover_pids(directory) == [proc.pid]
        began = time.monotonic()
        assert stop_leftovers(directory, deadline_s=deadline_s) == [proc.pid]
        took = time.monotonic() - began
        assert at_least_s <= took < at_least_s + 5.0, took  # SIGKILL after the grace
        proc.wait(timeout=5)
        assert leftover_pids(directory) == []
    finally:
        if proc.returncode is None and psutil.pid_exists(proc.pid):
            proc.kill()
            proc.wait()


def test_a_recorded_jvm_is_kept(tmp_path: Path) -> None:
    directory = tmp_path / "cluster"
    proc = start(directory, tmp_path / "ready")
    try:
        assert stop_leftovers(directory, keep={proc.pid}, deadline_s=0.0) == []
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
