"""Processes casslab owns: identify them safely and stop them by process group."""

from __future__ import annotations

import contextlib
import os

import psutil

from casslab import procgroup


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
    then SIGKILL it after ``deadline_s``; only while ``pid`` is still the process started at
    ``start_time``. Returns True if it had to be killed."""
    if not alive(pid, start_time):
        return False
    killed = procgroup.stop_group(pid, lambda: alive(pid, start_time), grace_s=deadline_s)
    _reap(pid)
    return killed


def _reap(pid: int) -> None:
    """Collect the exit status if the process is our child (no zombie left behind)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
