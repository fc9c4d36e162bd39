"""Processes casslab owns: identify them safely and stop them by process group."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import psutil


def alive(pid: int | None, start_time: float | None) -> bool:
    """True when ``pid`` runs and is the process we started (same create time)."""
    if pid is None:
        return False
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        return start_time is None or abs(process.create_time() - start_time) < 0.5
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def create_time(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except psutil.NoSuchProcess:
        return None


def stop_group(pid: int, start_time: float | None, deadline_s: float = 30.0) -> bool:
    """SIGTERM the process group led by ``pid`` (we start every JVM in its own session),
    then SIGKILL it after ``deadline_s``. Returns True if it had to be killed."""
    if not alive(pid, start_time):
        return False
    _signal_group(pid, signal.SIGTERM)
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if not alive(pid, start_time):
            _reap(pid)
            return False
        time.sleep(0.1)
    _signal_group(pid, signal.SIGKILL)
    end = time.monotonic() + 10.0
    while alive(pid, start_time) and time.monotonic() < end:
        time.sleep(0.05)
    _reap(pid)
    return True


def _signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        return
    except PermissionError:
        os.kill(pid, sig)


def _reap(pid: int) -> None:
    """Collect the exit status if the process is our child (no zombie left behind)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
