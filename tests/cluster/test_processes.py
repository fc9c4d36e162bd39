"""casslab.cluster.processes.stop_group: a JVM-like group identified by PID + start time."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import psutil
import pytest

from casslab.cluster.processes import alive, create_time, stop_group


def start(script: str, ready: Path) -> subprocess.Popen[bytes]:
    """A shell in its own session, as casslab starts each Cassandra JVM; returns once the
    shell has run its first line (``script`` must ``touch`` ``ready`` after any trap)."""
    proc = subprocess.Popen(["sh", "-c", script.format(ready=ready)], start_new_session=True)
    deadline = time.monotonic() + 10
    while not ready.exists():
        assert time.monotonic() < deadline, "the shell did not start"
        time.sleep(0.02)
    return proc


def no_such_process(pid: int) -> bool:
    """True once ``pid`` is gone and reaped (no zombie left)."""
    return not psutil.pid_exists(pid)


@pytest.mark.parametrize(
    ("script", "deadline_s", "killed"),
    [
        ("touch {ready}; sleep 60 & wait", 10.0, False),  # leaves on SIGTERM
        ("trap '' TERM; touch {ready}; sleep 60 & wait", 0.5, True),  # needs SIGKILL
    ],
)
def test_stop_group_stops_and_reaps(
    script: str, deadline_s: float, killed: bool, tmp_path: Path
) -> None:
    proc = start(script, tmp_path / "ready")
    started = create_time(proc.pid)
    assert alive(proc.pid, started)
    try:
        assert stop_group(proc.pid, started, deadline_s=deadline_s) is killed
        assert not alive(proc.pid, started)
        assert no_such_process(proc.pid), "stop_group left a zombie"
    finally:
        if proc.returncode is None and psutil.pid_exists(proc.pid):
            proc.kill()
            proc.wait()


def test_a_reused_pid_is_not_signalled(tmp_path: Path) -> None:
    """Another start time means another process: nothing is sent."""
    proc = start("touch {ready}; exec sleep 60", tmp_path / "ready")
    try:
        started = create_time(proc.pid)
        assert started is not None
        assert stop_group(proc.pid, started - 100.0, deadline_s=0.2) is False
        time.sleep(0.2)
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
