"""Processes casslab owns: identify them safely and stop them by process group."""

from __future__ import annotations

import contextlib
import os

from casslab import procgroup
from casslab.pids import alive, create_time

__all__ = ["alive", "create_time", "stop_group"]


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
