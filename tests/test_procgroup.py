"""casslab.procgroup.stop_group on real process groups (``sh`` and ``sleep``)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from casslab import procgroup


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.fixture
def group(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A shell leading its own session with a ``sleep`` child; ``trap`` from the param."""
    trap: str = request.param
    child_file = tmp_path / "child"
    proc = subprocess.Popen(
        ["sh", "-c", f'{trap}\nsleep 60 &\necho $! > "{child_file}"\nwait'],
        start_new_session=True,
    )
    deadline = time.monotonic() + 10
    while not (child_file.exists() and child_file.read_text().strip()):
        assert time.monotonic() < deadline, "the shell did not start its child"
        time.sleep(0.02)
    child = int(child_file.read_text())
    yield proc, child
    if proc.poll() is None:  # a failed test must not leave the group running
        procgroup.signal_group(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.parametrize("group", [""], indirect=True)
def test_sigterm_stops_a_cooperative_group(group: tuple[subprocess.Popen[bytes], int]) -> None:
    proc, child = group
    started = time.monotonic()
    killed = procgroup.stop_group(proc.pid, lambda: proc.poll() is None, grace_s=10.0)
    assert killed is False
    assert time.monotonic() - started < 5.0
    assert proc.returncode is not None
    assert procgroup.wait_until_gone(lambda: not gone(child), 5.0)


@pytest.mark.parametrize("group", [""], indirect=True)
def test_a_stopped_group_is_continued_and_ends_on_sigterm(
    group: tuple[subprocess.Popen[bytes], int],
) -> None:
    proc, child = group
    procgroup.signal_group(proc.pid, signal.SIGSTOP)
    assert procgroup.wait_until_gone(
        lambda: psutil.Process(proc.pid).status() != psutil.STATUS_STOPPED, 5.0
    )
    started = time.monotonic()
    killed = procgroup.stop_group(proc.pid, lambda: proc.poll() is None, grace_s=10.0)
    assert killed is False  # it ended on SIGTERM, not on the SIGKILL after 10 s
    assert time.monotonic() - started < 5.0
    assert proc.returncode == -signal.SIGTERM
    assert procgroup.wait_until_gone(lambda: not gone(child), 5.0)


@pytest.mark.parametrize("group", ["trap '' TERM"], indirect=True)
def test_sigterm_resistant_group_is_killed_after_the_grace_time(
    group: tuple[subprocess.Popen[bytes], int],
) -> None:
    proc, child = group
    started = time.monotonic()
    killed = procgroup.stop_group(proc.pid, lambda: proc.poll() is None, grace_s=0.5)
    elapsed = time.monotonic() - started
    assert killed is True
    assert 0.5 <= elapsed < 5.0
    assert proc.returncode == -9
    assert procgroup.wait_until_gone(lambda: not gone(child), 5.0)


@pytest.mark.parametrize("group", [""], indirect=True)
def test_nothing_is_sent_when_the_leader_is_not_ours(
    group: tuple[subprocess.Popen[bytes], int],
) -> None:
    """``running`` False (e.g. the PID now belongs to another process): no signal at all."""
    proc, child = group
    assert procgroup.stop_group(proc.pid, lambda: False, grace_s=0.1) is False
    time.sleep(0.2)
    assert proc.poll() is None
    assert not gone(child)


def test_signalling_a_group_that_is_gone_is_not_an_error() -> None:
    proc = subprocess.Popen(["true"], start_new_session=True)
    proc.wait()
    procgroup.signal_group(proc.pid, signal.SIGTERM)


def test_wait_until_gone_times_out() -> None:
    started = time.monotonic()
    assert procgroup.wait_until_gone(lambda: True, 0.2) is False
    assert time.monotonic() - started >= 0.2
