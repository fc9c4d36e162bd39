"""``kind: clock-jump``: node ``target``'s wall clock steps by ``offset`` (on top of any skew
it has) through its clock file (:mod:`casslab.cluster.clock_skew`, read by the node within
100 ms), and steps back after ``for``. Needs clocks that can be skewed (local and isolated
nodes) and makes the run's nodes run casslab's clock."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field, field_validator, model_validator

from casslab.cluster.capabilities import clock_of
from casslab.faults import node_signals
from casslab.faults.fault_kind import FileFacts, Target, Undo
from casslab.record import Record
from casslab.units import offset_ms

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


class ClockJumpFields(Record):
    """How far the clock steps, ms (the file's ``offset: -5s``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    offset_ms: float | None = Field(default=None, alias="offset")

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
    def _needed(self) -> ClockJumpFields:
        if not self.offset_ms:
            raise ValueError("a clock-jump needs offset: how far the clock steps, e.g. -5s")
        return self


def _by_ms(fault: Fault) -> float:
    fields = fault.fields
    return fields.offset_ms or 0.0 if isinstance(fields, ClockJumpFields) else 0.0


@dataclass(frozen=True)
class ClockJumpFault:
    name: str = "clock-jump"
    fields: type[Record] = ClockJumpFields
    target: Target = Target.NODE
    marks_down: bool = False  # the node stays up
    ends_jvm: bool = False
    steps_clock: bool = True
    reshapes_cluster: bool = False
    ends_when_done: bool = False

    def describe(self, fields: Record) -> str:
        by = fields.offset_ms if isinstance(fields, ClockJumpFields) else None
        return f" by {by:+g} ms" if by is not None else ""

    def file_problems(self, index: int, fault: Fault, facts: FileFacts) -> list[str]:
        return []

    def check(self, cluster: Cluster, fault: Fault) -> None:
        node_signals.check_faultable(cluster)

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        """Step the clock; the offset it had."""
        node_signals.check_faultable(cluster)
        number = int(fault.target)
        clock = clock_of(cluster)
        before = clock.offset_ms(number)
        clock.set_offset(number, before + _by_ms(fault))
        return before

    def end(self, cluster: Cluster, fault: Fault, undo: Undo, timeout_s: float) -> None:
        before = undo if isinstance(undo, float) else 0.0
        clock_of(cluster).set_offset(int(fault.target), before)


CLOCK_JUMP = ClockJumpFault()
