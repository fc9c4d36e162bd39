"""Stop a process group: SIGTERM, wait for its leader to end, SIGKILL after a deadline.

casslab starts every long-lived child (Cassandra JVMs, the load engine) as the leader of its
own session (``start_new_session=True``), so the group id is the leader's PID. Callers say
how to tell that the leader still runs: a Popen child by ``poll()`` (which also reaps it), a
detached JVM by PID plus start time (see :mod:`casslab.cluster.processes`), so a PID the
system has reused for another process is never signalled again once the leader is gone.

Standard library only: the load engine's start-up path imports it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable

POLL_S = 0.05


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send ``sig`` to process group ``pgid``; a group that is gone is not an error. When the
    group cannot be signalled (not ours), only its leader ``pgid`` is."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return
    except PermissionError:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pgid, sig)


def wait_until_gone(running: Callable[[], bool], timeout_s: float) -> bool:
    """Poll ``running`` until it is False (returns True) or ``timeout_s`` passes (False)."""
    end = time.monotonic() + timeout_s
    while running():
        if time.monotonic() >= end:
            return False
        time.sleep(POLL_S)
    return True


def stop_group(
    pgid: int,
    running: Callable[[], bool],
    *,
    grace_s: float,
    kill_wait_s: float = 10.0,
) -> bool:
    """Stop the process group led by ``pgid``: SIGTERM; if ``running()`` is still True after
    ``grace_s``, SIGKILL and wait up to ``kill_wait_s`` more. Returns True when SIGKILL was
    needed. Nothing is sent when ``running()`` is already False. SIGCONT follows the
    SIGTERM: a stopped group (a node paused with SIGSTOP) acts on SIGTERM only once it
    runs, and would otherwise wait out ``grace_s`` to be killed."""
    if not running():
        return False
    signal_group(pgid, signal.SIGTERM)
    signal_group(pgid, signal.SIGCONT)
    if wait_until_gone(running, grace_s):
        return False
    signal_group(pgid, signal.SIGKILL)
    wait_until_gone(running, kill_wait_s)
    return True
