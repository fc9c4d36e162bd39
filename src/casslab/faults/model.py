"""The ``faults:`` timeline of an experiment file (pure)::

    faults:
      - {at: 20s, kind: kill, target: 2, for: 15s}    # SIGKILL node 2, restart it 15 s later
      - {at: 60s, kind: pause, target: 3, for: 5s}    # SIGSTOP, then SIGCONT
      - {at: 90s, kind: stop, target: node2, for: 20s}  # drain and stop, then start
      - {at: 120s, kind: clock-jump, target: 3, for: 30s, offset: -5s}  # its clock steps
      - {at: 180s, kind: partition, target: dc3, for: 20s}   # or a link: dc1-dc3
      - {at: 240s, kind: slow-disk, target: 2, for: 30s, rate: 2MiB/s, iops: 50}

``at`` counts from the start of the measured phase (after its warm-up); ``for`` is how
long the fault lasts before the node is brought back (a killed or stopped node then takes
its start-up time more: the window ends when it is back, as recorded). A clock jump steps
the node's wall clock by ``offset`` (on top of any skew it has) and steps it back after
``for`` (local and isolated nodes: :mod:`casslab.cluster.clock_skew`). A partition cuts the
emulated links of a topology (every link of a datacenter, or one link ``dc1-dc3``) and
heals them (:mod:`casslab.net.cuts`). A slow disk throttles the block I/O of the node's
cgroup on its data directory's disk to ``rate`` (bytes per second, read and write alike)
and/or ``iops``, and lifts the throttle after ``for`` (isolated nodes only:
:mod:`casslab.faults.slow_disk`).
"""

from __future__ import annotations

import itertools
import re
from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from casslab.errors import ConfigError
from casslab.record import Record
from casslab.units import duration_s, offset_ms, parse_bytes


class FaultKind(StrEnum):
    KILL = "kill"  # SIGKILL the node's JVM; started again after `for`
    PAUSE = "pause"  # SIGSTOP; SIGCONT after `for`
    STOP = "stop"  # nodetool drain, then SIGTERM; started again after `for`
    CLOCK_JUMP = "clock-jump"  # the node's wall clock steps by `offset`, and back after `for`
    PARTITION = "partition"  # a topology's links to a datacenter (or one link) cut, then healed
    SLOW_DISK = "slow-disk"  # the node's cgroup's block I/O throttled to `rate`/`iops`


_NODE = re.compile(r"^(?:node)?([1-9][0-9]*)$")
_PLACE = re.compile(r"^[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)?$")  # dc3, or a link dc1-dc3


def _seconds(value: Any, what: str) -> float:
    seconds = duration_s(value)
    if seconds is None or seconds < 0:
        raise ValueError(f"{what} {value!r}: give a duration such as 20s, 1m or 1500ms")
    return seconds


class Fault(Record):
    """One fault of the timeline, as checked: seconds and a node number."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    at_s: float = Field(alias="at", ge=0)
    kind: FaultKind
    target: int | str  # a node's number; for a partition, a datacenter or a link
    for_s: float = Field(alias="for", gt=0)
    offset_ms: float | None = Field(default=None, alias="offset")  # clock-jump only
    rate_bps: int | None = Field(default=None, alias="rate")  # slow-disk: bytes/s, read and write
    iops: int | None = Field(default=None, gt=0)  # slow-disk: I/O operations/s, read and write

    @field_validator("rate_bps", mode="before")
    @classmethod
    def _rate(cls, value: Any) -> Any:
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        return parse_rate(str(value), "rate")

    @field_validator("offset_ms", mode="before")
    @classmethod
    def _offset(cls, value: Any) -> Any:
        if value is None or isinstance(value, int | float):
            return value
        parsed = offset_ms(str(value))
        if parsed is None:
            raise ValueError(f"offset {value!r}: give a signed duration, e.g. -5s or +500ms")
        return parsed

    @model_validator(mode="after")
    def _offset_for_clock_jumps(self) -> Fault:
        jump = self.kind is FaultKind.CLOCK_JUMP
        if jump and not self.offset_ms:
            raise ValueError("a clock-jump needs offset: how far the clock steps, e.g. -5s")
        if not jump and self.offset_ms is not None:
            raise ValueError(f"offset is for clock-jump faults, not {self.kind}; remove it")
        slow = self.kind is FaultKind.SLOW_DISK
        if slow and self.rate_bps is None and self.iops is None:
            raise ValueError("a slow-disk needs rate (e.g. rate: 2MiB/s) and/or iops (e.g. 50)")
        if not slow and (self.rate_bps is not None or self.iops is not None):
            raise ValueError(
                f"rate and iops are for slow-disk faults, not {self.kind}; remove them"
            )
        return self

    @field_validator("at_s", mode="before")
    @classmethod
    def _at(cls, value: Any) -> float:
        return _seconds(value, "at")

    @field_validator("for_s", mode="before")
    @classmethod
    def _for(cls, value: Any) -> float:
        seconds = _seconds(value, "for")
        if seconds <= 0:
            raise ValueError(f"for {value!r}: a fault lasts more than 0 s")
        return seconds

    @field_validator("target", mode="before")
    @classmethod
    def _target(cls, value: Any, info: ValidationInfo) -> int | str:
        if info.data.get("kind") is FaultKind.PARTITION:
            if isinstance(value, str) and _PLACE.match(value):
                return value
            raise ValueError(f"target {value!r}: give a datacenter (dc3) or a link (dc1-dc3)")
        match = _NODE.match(str(value))
        if match is None or isinstance(value, bool):
            raise ValueError(f"target {value!r}: give a node number (2) or name (node2)")
        return int(match.group(1))

    @property
    def end_s(self) -> float:
        """When the node is brought back (planned)."""
        return self.at_s + self.for_s

    @property
    def node(self) -> int | None:
        """The node it acts on (None: a partition's links)."""
        return self.target if isinstance(self.target, int) else None

    def describe(self) -> str:
        by = f" by {self.offset_ms:+g} ms" if self.offset_ms is not None else ""
        if self.rate_bps is not None:
            by += f" to {self.rate_bps / 2**20:g} MiB/s"
        if self.iops is not None:
            by += f" to {self.iops} IOPS" if self.rate_bps is None else f" and {self.iops} IOPS"
        what = f"node {self.target}" if self.node is not None else str(self.target)
        return f"{self.kind} {what}{by} at {self.at_s:g} s for {self.for_s:g} s"


def parse_rate(text: str, what: str) -> int:
    """Bytes per second in ``2MiB/s``, ``512K/s`` or ``2MiB`` (binary units, as the
    isolated nodes' ``--io-read``); a :class:`ValueError` naming ``what`` otherwise."""
    body = text.strip()
    body = body[:-2] if body.lower().endswith("/s") else body
    try:
        return parse_bytes(body, what, "2MiB/s")
    except ConfigError as error:
        raise ValueError(str(error)) from None


def timeline_problems(faults: list[Fault], nodes: int) -> list[str]:
    """Problems across the timeline: a target beyond the cluster, and two faults on one
    node at once (the second would act on a node the first holds down)."""
    problems = [
        f"faults[{i}]: target node {f.node}, but the cluster has {nodes} node(s)"
        for i, f in enumerate(faults)
        if f.node is not None and f.node > nodes
    ]
    by_node: dict[int | str, list[tuple[int, Fault]]] = {}
    for item in sorted(enumerate(faults), key=lambda item: item[1].at_s):
        by_node.setdefault(item[1].target, []).append(item)
    for items in by_node.values():
        for (i, first), (j, second) in itertools.pairwise(items):
            if second.at_s < first.end_s:
                what = f"node {second.target}" if second.node is not None else second.target
                problems.append(
                    f"faults[{j}]: {what} is still under faults[{i}] "
                    f"({first.describe()}); start it after {first.end_s:g} s"
                )
    return problems
