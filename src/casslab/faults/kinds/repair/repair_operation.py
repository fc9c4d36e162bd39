"""``kind: repair``: ``nodetool repair`` on node ``target``: full (``-full``, the
default) or ``incremental: true``; ``keyspace:`` limits it to one keyspace (default: every
keyspace Cassandra repairs). It ends when nodetool returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field

from casslab.faults.operation import OPERATION_TIMEOUT_S, NodeOperation, Stopwatch
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


class RepairFields(Record):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    incremental: bool = False
    keyspace: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_]+$")


@dataclass(frozen=True)
class RepairOperation(NodeOperation):
    name: str = "repair"
    fields: type[Record] = RepairFields

    def describe(self, fields: Record) -> str:
        if not isinstance(fields, RepairFields):
            return ""
        how = " (incremental)" if fields.incremental else " (full)"
        return how + (f" of {fields.keyspace}" if fields.keyspace else "")

    def run(self, cluster: Cluster, fault: Fault, watch: Stopwatch) -> None:
        fields = fault.fields
        assert isinstance(fields, RepairFields)
        args = ["repair"] if fields.incremental else ["repair", "-full"]
        if fields.keyspace:
            args.append(fields.keyspace)
        number = int(fault.target)
        with watch.step(number, "repair"):
            cluster.nodetool(number, *args, timeout_s=OPERATION_TIMEOUT_S)


REPAIR = RepairOperation()
