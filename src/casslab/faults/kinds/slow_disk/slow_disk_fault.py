"""``kind: slow-disk``: the block I/O of node ``target``'s cgroup on its data directory's
disk throttled to ``rate`` (bytes per second, read and write alike) and/or ``iops``, lifted
after ``for`` (:mod:`.block_throttle`). Only isolated nodes run in a casslab cgroup: the
file check refuses trials with plain nodes or another machine's, the cluster check a node
in no cgroup."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field, field_validator, model_validator

from casslab.errors import ConfigError
from casslab.faults import node_signals
from casslab.faults.fault_kind import FileFacts, Target, Undo
from casslab.faults.kinds.slow_disk import block_throttle
from casslab.record import Record
from casslab.units import parse_bytes

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


def parse_rate(text: str, what: str) -> int:
    """Bytes per second in ``2MiB/s``, ``512K/s`` or ``2MiB`` (binary units, as the
    isolated nodes' ``--io-read``); a :class:`ValueError` naming ``what`` otherwise."""
    body = text.strip()
    body = body[:-2] if body.lower().endswith("/s") else body
    try:
        return parse_bytes(body, what, "2MiB/s")
    except ConfigError as error:
        raise ValueError(str(error)) from None


class SlowDiskFields(Record):
    """The throttle: bytes/s and/or I/O operations/s, read and write alike."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    rate_bps: int | None = Field(default=None, alias="rate")
    iops: int | None = Field(default=None, gt=0)

    @field_validator("rate_bps", mode="before")
    @classmethod
    def _rate(cls, value: Any) -> Any:
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        return parse_rate(str(value), "rate")

    @model_validator(mode="after")
    def _needed(self) -> SlowDiskFields:
        if self.rate_bps is None and self.iops is None:
            raise ValueError("a slow-disk needs rate (e.g. rate: 2MiB/s) and/or iops (e.g. 50)")
        return self


@dataclass(frozen=True)
class SlowDiskFault:
    name: str = "slow-disk"
    fields: type[Record] = SlowDiskFields
    target: Target = Target.NODE
    marks_down: bool = False  # the node stays up
    ends_jvm: bool = False
    steps_clock: bool = False
    reshapes_cluster: bool = False
    ends_when_done: bool = False

    def describe(self, fields: Record) -> str:
        if not isinstance(fields, SlowDiskFields):
            return ""
        by = ""
        if fields.rate_bps is not None:
            by += f" to {fields.rate_bps / 2**20:g} MiB/s"
        if fields.iops is not None:
            by += (
                f" to {fields.iops} IOPS" if fields.rate_bps is None else f" and {fields.iops} IOPS"
            )
        return by

    def file_problems(self, index: int, fault: Fault, facts: FileFacts) -> list[str]:
        where = facts.not_isolated()
        if where is None:
            return []
        return [
            f"faults[{index}]: a slow-disk throttles the node's cgroup, and {where}; give the "
            "cluster isolation: netns (or a limit such as cpus: 1), or remove the fault"
        ]

    def check(self, cluster: Cluster, fault: Fault) -> None:
        node_signals.check_faultable(cluster)
        block_throttle.check(cluster, int(fault.target))

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        node_signals.check_faultable(cluster)
        fields = fault.fields
        if not isinstance(fields, SlowDiskFields):
            raise ConfigError(f"{fault.describe()}: a slow-disk needs rate and/or iops")
        return block_throttle.begin(cluster, int(fault.target), fields.rate_bps, fields.iops)

    def end(self, cluster: Cluster, fault: Fault, undo: Undo, timeout_s: float) -> None:
        if isinstance(undo, block_throttle.Throttled):
            block_throttle.end(undo)


SLOW_DISK = SlowDiskFault()
