"""What the operations on a trial's timeline share (restart, repair, cleanup, flush,
compact): a kind that :attr:`~casslab.faults.fault_kind.FaultKind.ends_when_done`, a node
target, a cluster casslab runs (an attached cluster is refused with its backend's reason:
casslab does not operate nodes it does not own), and what one did: its steps on each node
with their times (:class:`OperationDone`), which the timeline keeps in ``faults.json``.

An operation's :meth:`NodeOperation.begin` runs it to its end; the timeline's window is
that time. Whatever else is due while it runs begins when it is done.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.cluster.capabilities import processes_of
from casslab.faults.fault_kind import FileFacts, NoFields, Target, Undo
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault

OPERATION_TIMEOUT_S = 600.0  # the longest one nodetool command of an operation may take


class OperationStep(Record):
    """One step of an operation on one node (``drain``, ``stop``, ``start``, ``repair``);
    ``start_s`` from the operation's start (in ``faults.json``: of the measured phase)."""

    node: int
    step: str
    start_s: float
    duration_s: float
    bytes_streamed: int | None = None  # what it streamed, where it streams and was read


class OperationDone(Record):
    """What an operation's ``begin`` returns: its steps, in order."""

    steps: list[OperationStep]


class Stopwatch:
    """Times an operation's steps from its creation."""

    def __init__(self) -> None:
        self._t0 = time.monotonic()
        self.steps: list[OperationStep] = []

    @contextmanager
    def step(self, node: int, name: str) -> Iterator[None]:
        """Time the block as step ``name`` on ``node`` (kept only when it ends without an
        error: a failed step is the operation's error)."""
        began = time.monotonic()
        yield
        self.steps.append(
            OperationStep(
                node=node,
                step=name,
                start_s=began - self._t0,
                duration_s=time.monotonic() - began,
            )
        )

    def done(self) -> OperationDone:
        return OperationDone(steps=list(self.steps))


@dataclass(frozen=True)
class NodeOperation:
    """An operation on one node; a kind says in :meth:`run` what it does."""

    name: str = ""
    fields: type[Record] = NoFields
    target: Target = Target.NODE
    marks_down: bool = False
    ends_jvm: bool = False
    steps_clock: bool = False
    reshapes_cluster: bool = False
    ends_when_done: bool = True

    def describe(self, fields: Record) -> str:
        return ""

    def file_problems(self, index: int, fault: Fault, facts: FileFacts) -> list[str]:
        return []

    def nodes_after(self, numbers: tuple[int, ...], fault: Fault) -> tuple[int, ...]:
        """The cluster's node numbers once it is done, from ``numbers`` before it (pure):
        the same, unless it adds or removes a node; a ConfigError when it cannot run on
        those (:mod:`casslab.faults.projection`)."""
        return numbers

    def check(self, cluster: Cluster, fault: Fault) -> None:
        """Refuse a cluster casslab does not run (an attached one), in its own words."""
        processes_of(cluster)

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        watch = Stopwatch()
        self.run(cluster, fault, watch)
        return watch.done()

    def run(self, cluster: Cluster, fault: Fault, watch: Stopwatch) -> None:
        raise NotImplementedError

    def end(self, cluster: Cluster, fault: Fault, undo: Undo, timeout_s: float) -> None:
        """Nothing to bring back: the operation ended in :meth:`begin`."""


@dataclass(frozen=True)
class NodetoolOperation(NodeOperation):
    """An operation that is one ``nodetool <name>`` on its node (flush, compact, cleanup)."""

    def run(self, cluster: Cluster, fault: Fault, watch: Stopwatch) -> None:
        number = int(fault.target)
        with watch.step(number, self.name):
            cluster.nodetool(number, self.name, timeout_s=OPERATION_TIMEOUT_S)
