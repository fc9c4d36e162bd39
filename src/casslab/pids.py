"""A process casslab started, told apart from another that later got the same PID: by
its PID and its create time, as recorded when it was started."""

from __future__ import annotations

import psutil


def alive(pid: int | None, start_time: float | None) -> bool:
    """True when ``pid`` runs and is the process started at ``start_time`` (None: any
    process of that PID). A zombie is not alive once all its threads are gone: a killed
    JVM's main thread turns zombie before its other threads have exited, and those still
    hold its sockets (its ports are free only when the last one is gone)."""
    if pid is None:
        return False
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE and process.num_threads() <= 1:
            return False
        return start_time is None or abs(process.create_time() - start_time) < 0.5
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def create_time(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except psutil.NoSuchProcess:
        return None
