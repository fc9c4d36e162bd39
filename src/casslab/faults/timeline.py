"""Run a trial's faults during its measured phase: a thread that waits for each fault's
time, puts its node under it, waits its length and brings the node back, recording when
each step happened. :meth:`FaultTimeline.stop` (at the phase's end, also on an error or
Ctrl-C) ends what is still on: a paused node is continued and a killed or stopped node
started, so no trial leaves a node down. What happened is a list of :class:`FaultRecord`
(``faults.json`` of the trial).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from casslab.cluster import Cluster
from casslab.errors import CasslabError, ConfigError
from casslab.faults import actions, projection
from casslab.faults.detection import DownWatch
from casslab.faults.fault_kind import Undo
from casslab.faults.hints import HintsBlock, HintTally
from casslab.faults.model import Fault
from casslab.faults.operation import OperationDone, OperationStep
from casslab.record import Record

log = logging.getLogger(__name__)

RESTART_TIMEOUT_S = 300.0
UP_WAIT_S = 10.0  # at the phase's end, for a node back to be marked up by the others


class FaultRecord(Record):
    """One fault as it happened; times in seconds after the measured phase began."""

    kind: str  # a registered kind's name (casslab.faults.fault_kinds)
    target: int | str  # a node; a partition's datacenter or link
    planned_at_s: float
    planned_for_s: float | None  # None: an operation, which ends when it is done
    # the kind's own fields, as planned (a slow disk's rate_bps and iops)
    fields: dict[str, Any] = Field(default_factory=dict)
    began_s: float | None = None  # the node was put under the fault
    ended_s: float | None = None  # the node was back (started and ready, or continued)
    marked_down_s: float | None = None  # another node's failure detector held it down
    marked_up_s: float | None = None  # ... and up again, after it was back
    watch_error: str | None = None  # why nobody could watch it (JMX)
    error: str | None = None
    operation: bool = False  # an operation (restart, repair, ...): it ended when done
    steps: list[OperationStep] = Field(default_factory=list)  # an operation's, phase times


class FaultTimeline:
    """The faults of one measured phase, begun at ``start()`` (the phase's time zero)."""

    def __init__(self, cluster: Cluster, faults: Sequence[Fault]) -> None:
        self._faults = projection.in_order(faults)
        # a fourth node added at 60 s may be decommissioned at 120 s: the faults after the
        # first change of the node numbers are checked against the numbers projected now,
        # and against the live cluster when their time comes
        # (the faults as written: a problem names faults[i] as the file numbers them)
        projected = projection.project([n.number for n in cluster.nodes], faults)
        if projected.problems:
            raise ConfigError(
                f"the timeline on cluster {cluster.name!r}: " + "; ".join(projected.problems)
            )
        for fault in self._faults[: projected.live_checked]:
            actions.check(cluster, fault)
        self._checked_at_time = set(range(projected.live_checked, len(self._faults)))
        self._cluster = cluster
        self._records = [
            FaultRecord(
                kind=f.kind,
                target=f.target,
                planned_at_s=f.at_s,
                planned_for_s=f.for_s,
                fields=f.fields.model_dump(mode="json"),
                operation=f.of_kind.ends_when_done,
            )
            for f in self._faults
        ]
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._active: set[int] = set()  # indexes of faults begun and not ended
        self._watches: dict[int, DownWatch] = {}
        self._undo: dict[int, Undo] = {}  # a clock's offset before, links cut
        self._thread: threading.Thread | None = None
        self._t0 = 0.0
        self._hints = HintTally(cluster)
        self.hints: HintsBlock | None = None  # the nodes' hints, once stopped
        self._over = threading.Event()  # every fault ended and every operation done

    @property
    def records(self) -> list[FaultRecord]:
        with self._lock:
            return list(self._records)

    def start(self, t0: float | None = None) -> None:
        """Start the clock (``t0``: the phase's start, monotonic; default now)."""
        self._t0 = time.monotonic() if t0 is None else t0
        self._thread = threading.Thread(target=self._run, name="casslab-faults", daemon=True)
        self._thread.start()

    def _now(self) -> float:
        return time.monotonic() - self._t0

    def _wait_until(self, at_s: float) -> bool:
        """Sleep until phase time ``at_s``; False when stopped first."""
        return not self._stop.wait(max(0.0, at_s - self._now()))

    def _update(self, index: int, **fields: object) -> None:
        with self._lock:
            self._records[index] = self._records[index].model_copy(update=fields)

    @property
    def stopped(self) -> bool:
        """:meth:`stop` was called."""
        return self._stop.is_set()

    def wait_over(self, timeout_s: float | None = None) -> bool:
        """Wait until every fault of the timeline has ended and every operation is done
        (True), or ``timeout_s`` passed or the timeline was stopped first (False)."""
        return self._over.wait(timeout_s) and not self._stop.is_set()

    def _run(self) -> None:
        self._hints.start()
        pending = list(enumerate(self._faults))
        ends: list[tuple[float, int]] = []  # (planned end, index), soonest first
        while pending or ends:
            next_begin = pending[0][1].at_s if pending else float("inf")
            next_end = ends[0][0] if ends else float("inf")
            if not self._wait_until(min(next_begin, next_end)):
                return
            if next_end <= next_begin:
                _, index = ends.pop(0)
                self._end(index)
                continue
            index, fault = pending.pop(0)
            if fault.for_s is None:  # an operation: it holds the timeline until done
                self._operate(index, fault)
            elif self._begin(index, fault):
                ends.append((self._now() + fault.for_s, index))
                ends.sort()
        self._over.set()

    def _begin(self, index: int, fault: Fault) -> bool:
        if fault.of_kind.ends_jvm and fault.node is not None:
            self._hints.checkpoint(fault.node)  # its counters end with its JVM
        try:
            if index in self._checked_at_time:
                actions.check(self._cluster, fault)
            undo = actions.begin(self._cluster, fault)
        except CasslabError as error:
            log.warning("fault %s did not begin: %s", fault.describe(), error)
            self._update(index, error=str(error))
            return False
        self._update(index, began_s=self._now())
        self._undo[index] = undo
        if not fault.of_kind.marks_down:  # the node stays up
            with self._lock:
                self._active.add(index)
            return True
        watch = DownWatch(self._cluster, fault.target, self._now)
        with self._lock:
            self._active.add(index)
            self._watches[index] = watch
        if watch.error is not None:
            self._update(index, watch_error=watch.error)
        return True

    def _operate(self, index: int, fault: Fault) -> None:
        """Run an operation to its end: its window is the time it took."""
        if fault.of_kind.ends_jvm and fault.node is not None:
            self._hints.checkpoint(fault.node)
        began = self._now()
        self._update(index, began_s=began)
        try:
            if index in self._checked_at_time:
                actions.check(self._cluster, fault)
            done = actions.begin(self._cluster, fault)
        except CasslabError as error:
            log.warning("operation %s failed: %s", fault.describe(), error)
            self._update(index, ended_s=self._now(), error=str(error))
            return
        steps = done.steps if isinstance(done, OperationDone) else []
        shifted = [s.model_copy(update={"start_s": s.start_s + began}) for s in steps]
        self._update(index, ended_s=self._now(), steps=shifted)

    def _end(self, index: int) -> None:
        fault = self._faults[index]
        try:
            actions.end(self._cluster, fault, RESTART_TIMEOUT_S, self._undo.get(index))
        except CasslabError as error:
            log.warning("fault %s did not end: %s", fault.describe(), error)
            self._update(index, error=str(error))
        else:
            self._update(index, ended_s=self._now())
        with self._lock:
            self._active.discard(index)
            watch = self._watches.get(index)
        if watch is not None:
            watch.back()

    def stop(self) -> list[FaultRecord]:
        """Stop the timeline and end every fault still on (nodes back, as far as they come);
        what happened. :attr:`hints` then holds the hints written and replayed, after a
        wait of at most :data:`~casslab.faults.hints.REPLAY_WAIT_S` for the replay."""
        self._stop.set()
        self._over.set()  # wakes a wait_over, which then says stopped
        if self._thread is not None:
            self._thread.join(RESTART_TIMEOUT_S + 30)
        with self._lock:
            active = sorted(self._active)
        for index in active:
            self._end(index)
        with self._lock:
            watches = dict(self._watches)
        for index, watch in watches.items():
            watch.stop(wait_up_s=UP_WAIT_S)
            self._update(index, marked_down_s=watch.down_s, marked_up_s=watch.up_s)
        self.hints = self._hints.stop()
        return self.records
