"""``after_operations:``: the measured phase ends that long after the trial's timeline is
over (every fault ended, every operation done), instead of running its whole
``duration=``, which stays the upper bound. A thread waits for the timeline, then for the
delay, then tells the engine to end its phase (SIGUSR1, :func:`casslab.load.engine.end_phase`):
the engine writes its last interval, reads back the acknowledged writes (``verify:``) and
writes its summary as at the phase's normal end. An operation's length is not known before
it runs (a bootstrap streams for as long as it must), so a phase sized for the slowest one
otherwise measures idle minutes after a quick one."""

from __future__ import annotations

import logging
import threading
import time

from casslab import pids
from casslab.faults.timeline import FaultTimeline
from casslab.load import engine

log = logging.getLogger(__name__)


class PhaseEnd:
    """Ends the engine's measured phase ``after_s`` after ``faults`` are over."""

    def __init__(self, faults: FaultTimeline, after_s: float) -> None:
        self._faults = faults
        self._after_s = after_s
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self.ended_at: float | None = None  # monotonic: when the engine was told

    def engine_started(self, pid: int) -> None:
        """Watch the timeline for the engine ``pid`` (the measured phase's)."""
        started = pids.create_time(pid)
        self._thread = threading.Thread(
            target=self._run, args=(pid, started), name="casslab-phase-end", daemon=True
        )
        self._thread.start()

    def _run(self, pid: int, started: float | None) -> None:
        while not self._faults.wait_over(timeout_s=0.5):
            if self._closed.is_set() or self._faults.stopped:
                return
        if self._closed.wait(self._after_s):
            return  # the phase ended first (its duration, an error, Ctrl-C)
        if engine.end_phase(pid, started):
            self.ended_at = time.monotonic()
            log.info("the timeline was over %g s ago: the measured phase ends", self._after_s)

    def close(self) -> None:
        """The engine ended: tell it nothing more (its PID may be another's soon)."""
        self._closed.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
