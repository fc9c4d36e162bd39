"""A node's JVM frozen for a while during a test's load: SIGSTOP, then SIGCONT."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def frozen_during(pid: int, *, after_s: float, for_s: float) -> Iterator[None]:
    """Within the block, the process ``pid`` is stopped (SIGSTOP) ``after_s`` seconds in,
    for ``for_s`` seconds, then continued; it is continued at the block's end in any case
    (also when the block fails), and the block's end waits for the freeze to be over."""

    def freeze() -> None:
        time.sleep(after_s)
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(for_s)
        finally:
            os.kill(pid, signal.SIGCONT)

    freezer = threading.Thread(target=freeze)
    freezer.start()
    try:
        yield
    finally:
        freezer.join()
        os.kill(pid, signal.SIGCONT)
