"""The ``faults:`` timeline of an experiment file (pure)::

    faults:
      - {at: 20s, kind: kill, target: 2, for: 15s}    # SIGKILL node 2, restart it 15 s later
      - {at: 60s, kind: pause, target: 3, for: 5s}    # SIGSTOP, then SIGCONT
      - {at: 90s, kind: stop, target: node2, for: 20s}  # drain and stop, then start
      - {at: 120s, kind: clock-jump, target: 3, for: 30s, offset: -5s}  # its clock steps
      - {at: 180s, kind: partition, target: dc3, for: 20s}   # or a link: dc1-dc3
      - {at: 240s, kind: slow-disk, target: 2, for: 30s, rate: 2MiB/s, iops: 50}
      - {at: 300s, kind: restart, target: 2}         # an operation: it ends when done
      - {at: 360s, kind: repair, target: 1, incremental: true}

``at`` counts from the start of the measured phase (after its warm-up); ``for`` is how
long the fault lasts before its target is brought back (a killed or stopped node then
takes its start-up time more: the window ends when it is back, as recorded). An
operation (a kind that :attr:`~casslab.faults.fault_kind.FaultKind.ends_when_done`:
restart, repair, cleanup, flush, compact) has no ``for``: its window ends when it is
done. ``kind``
names a kind registered in :mod:`casslab.faults.fault_kinds`; every other field is the
kind's own (``offset`` of a clock jump, ``rate`` and ``iops`` of a slow disk), read by its
:attr:`~casslab.faults.fault_kind.FaultKind.fields` record and kept in :attr:`Fault.fields`.
What each kind does: its folder under :mod:`casslab.faults.kinds`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Any

from pydantic import (
    ConfigDict,
    Field,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from casslab.faults import fault_kinds
from casslab.faults.fault_kind import FaultKind, NoFields, Target
from casslab.faults.projection import project
from casslab.record import Record
from casslab.units import duration_s

_NODE = re.compile(r"^(?:node)?([1-9][0-9]*)$")
_PLACE = re.compile(r"^[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)?$")  # dc3, or a link dc1-dc3
COMMON = {"at": "at_s", "kind": "kind", "target": "target", "for": "for_s"}


def _seconds(value: Any, what: str) -> float:
    seconds = duration_s(value)
    if seconds is None or seconds < 0:
        raise ValueError(f"{what} {value!r}: give a duration such as 20s, 1m or 1500ms")
    return seconds


def _kind(value: Any) -> FaultKind:
    """The registered kind ``value`` names; a :class:`ValueError` listing them."""
    found = fault_kinds.FAULT_KINDS.get(value) if isinstance(value, str) else None
    if found is None:
        names = [repr(name) for name in fault_kinds.FAULT_KINDS]
        listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
        raise ValueError(f"kind {value!r} is not a fault kind: give {listed}")
    return found


class Fault(Record):
    """One fault of the timeline, as checked: seconds, a node number (or a place) and
    the kind's own fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    at_s: float = Field(alias="at", ge=0)
    kind: str
    target: int | str  # a node's number; for a place kind, a datacenter or a link
    for_s: float | None = Field(default=None, alias="for", gt=0)  # None: an operation
    fields: SerializeAsAny[Record] = Field(default_factory=NoFields)

    @model_validator(mode="before")
    @classmethod
    def _own_fields(cls, data: Any) -> Any:
        """Read the fields besides ``at``, ``kind``, ``target`` and ``for`` with the
        kind's own record (a field written as null is no field: older plans wrote every
        kind's fields on every fault)."""
        if not isinstance(data, Mapping) or isinstance(data.get("fields"), Record):
            return data
        common = {k: v for k, v in data.items() if k in COMMON or k in COMMON.values()}
        rest = {k: v for k, v in data.items() if k not in common and v is not None}
        try:
            kind = _kind(data.get("kind"))
        except ValueError:
            return common  # the kind's own error says it
        try:
            own = kind.fields.model_validate(rest)
        except ValidationError as error:
            raise ValueError(_own_problems(kind, error)) from None
        return common | {"fields": own}

    @field_validator("kind", mode="before")
    @classmethod
    def _known(cls, value: Any) -> str:
        return _kind(value).name

    @field_validator("at_s", mode="before")
    @classmethod
    def _at(cls, value: Any) -> float:
        return _seconds(value, "at")

    @field_validator("for_s", mode="before")
    @classmethod
    def _for(cls, value: Any) -> float | None:
        if value is None:
            return None
        seconds = _seconds(value, "for")
        if seconds <= 0:
            raise ValueError(f"for {value!r}: a fault lasts more than 0 s")
        return seconds

    @field_validator("target", mode="before")
    @classmethod
    def _target(cls, value: Any, info: ValidationInfo) -> int | str:
        kind = fault_kinds.FAULT_KINDS.get(info.data.get("kind", ""))
        if kind is not None and kind.target is Target.CLUSTER:
            if value in ("all", None):
                return "all"
            raise ValueError(f"target {value!r}: {kind.name} acts on every node; write all")
        if kind is not None and kind.target is Target.PLACE:
            if isinstance(value, str) and _PLACE.match(value):
                return value
            raise ValueError(f"target {value!r}: give a datacenter (dc3) or a link (dc1-dc3)")
        match = _NODE.match(str(value))
        if match is None or isinstance(value, bool):
            raise ValueError(f"target {value!r}: give a node number (2) or name (node2)")
        return int(match.group(1))

    @model_validator(mode="after")
    def _fields_of_its_kind(self) -> Fault:
        if not isinstance(self.fields, self.of_kind.fields):
            raise ValueError(f"{self.kind} faults take {self.of_kind.fields.__name__} fields")
        if self.of_kind.ends_when_done and self.for_s is not None:
            raise ValueError(
                f"for: a {self.kind} ends when it is done, not after a fixed time; remove for"
            )
        if not self.of_kind.ends_when_done and self.for_s is None:
            raise ValueError(f"for: give how long the {self.kind} lasts (for: 15s)")
        return self

    @model_serializer(mode="wrap")
    def _flat(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The fault as the file writes it: the kind's fields beside the common ones."""
        data: dict[str, Any] = handler(self)
        if data.get("for", data.get("for_s", 0)) is None:  # an operation: it has no length
            data.pop("for", None)
            data.pop("for_s", None)
        own = data.pop("fields", None)
        return data | (own if isinstance(own, dict) else {})

    @property
    def of_kind(self) -> FaultKind:
        """Its kind, from the registry."""
        return fault_kinds.fault_kind(self.kind)

    @property
    def end_s(self) -> float:
        """When the target is brought back (planned); an operation's own time is not
        known before it runs: its start."""
        return self.at_s + (self.for_s or 0.0)

    @property
    def node(self) -> int | None:
        """The node it acts on (None: a place's links)."""
        return self.target if isinstance(self.target, int) else None

    def describe(self) -> str:
        by = self.of_kind.describe(self.fields)
        what = f"node {self.target}" if self.node is not None else str(self.target)
        lasts = "until done" if self.for_s is None else f"for {self.for_s:g} s"
        return f"{self.kind} {what}{by} at {self.at_s:g} s {lasts}"


def _own_problems(kind: FaultKind, error: ValidationError) -> str:
    """A kind's field errors in one message: ``offset is for clock-jump faults, not kill``
    for a field the kind has not, the field's own message otherwise."""
    said: list[str] = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"])
        if problem["type"] == "extra_forbidden":
            said.append(_misplaced(where, kind))
        else:
            message = str(problem["msg"]).removeprefix("Value error, ")
            said.append(message if not where or where in message else f"{where}: {message}")
    return "; ".join(said)


def _misplaced(name: str, kind: FaultKind) -> str:
    """A field ``kind`` has not: the kind whose field it is, with all that kind's fields
    (``rate and iops are for slow-disk faults, not kill; remove them``)."""
    for other in fault_kinds.FAULT_KINDS.values():
        names = [f.alias or n for n, f in other.fields.model_fields.items()]
        if name in names:
            listed = " and ".join(names)
            verb, it = ("is", "it") if len(names) == 1 else ("are", "them")
            return f"{listed} {verb} for {other.name} faults, not {kind.name}; remove {it}"
    return f"{name} is not a field of {kind.name} faults; remove it"


def timeline_problems(faults: list[Fault], nodes: int) -> list[str]:
    """Problems across the timeline: a target the cluster will not have at its time (with
    the nodes added and removed before it: :mod:`casslab.faults.projection`), and two
    faults on one node at once (the second would act on a node the first holds down)."""
    problems = list(project(range(1, nodes + 1), faults).problems)
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
