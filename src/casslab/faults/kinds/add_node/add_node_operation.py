"""``kind: add-node``: a new node bootstraps into the ring (it streams its ranges from the
others) and the operation ends once every node sees it UP/NORMAL. ``target`` is the
number it will have: the cluster's next (3 on a 2-node cluster). On a cluster with
datacenters, ``datacenter: dc1`` says which one it joins (in the rack with the fewest of
that datacenter's nodes). Refused before anything starts: another number, one more heap
past this machine's memory, a datacenter missing or unknown, a cluster whose nodes casslab
does not run. Steps: bootstrap (with the bytes it received, JMX)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field

from casslab.cluster.capabilities import processes_of, ring_of
from casslab.errors import ConfigError
from casslab.faults import streaming
from casslab.faults.fault_kind import FileFacts, Target
from casslab.faults.operation import OPERATION_TIMEOUT_S, NodeOperation, Stopwatch
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


class AddNodeFields(Record):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    datacenter: str | None = Field(default=None, pattern=r"^[A-Za-z][A-Za-z0-9_]{0,31}$")


def _datacenter(fault: Fault) -> str | None:
    return fault.fields.datacenter if isinstance(fault.fields, AddNodeFields) else None


@dataclass(frozen=True)
class AddNodeOperation(NodeOperation):
    name: str = "add-node"
    fields: type[Record] = AddNodeFields
    target: Target = Target.NEW_NODE
    reshapes_cluster: bool = True

    def describe(self, fields: Record) -> str:
        if isinstance(fields, AddNodeFields) and fields.datacenter is not None:
            return f" in {fields.datacenter}"
        return ""

    def file_problems(self, index: int, fault: Fault, facts: FileFacts) -> list[str]:
        datacenter = _datacenter(fault)
        if datacenter is None or facts.may_have_topology:
            return []
        return [
            f"faults[{index}]: add-node into datacenter {datacenter}, but this experiment's "
            "clusters have no topology (one datacenter); remove datacenter: or add "
            "cluster.topology (e.g. dc1:2,dc2:1)"
        ]

    def nodes_after(self, numbers: tuple[int, ...], fault: Fault) -> tuple[int, ...]:
        expected = max(numbers) + 1
        if int(fault.target) != expected:
            raise ConfigError(
                f"the new node will be node {expected}, not {fault.target}; write target: "
                f"{expected}"
            )
        return (*numbers, expected)

    def check(self, cluster: Cluster, fault: Fault) -> None:
        processes_of(cluster)
        expected = ring_of(cluster).check_add(_datacenter(fault))
        if int(fault.target) != expected:
            raise ConfigError(
                f"add-node on cluster {cluster.name!r}: the new node will be node "
                f"{expected}, not {fault.target}; write target: {expected}"
            )

    def run(self, cluster: Cluster, fault: Fault, watch: Stopwatch) -> None:
        self.check(cluster, fault)
        number = int(fault.target)
        with watch.step(number, "bootstrap"):
            ring_of(cluster).add(OPERATION_TIMEOUT_S, _datacenter(fault))
        got = streaming.streamed(cluster, number)
        if got is not None:
            watch.steps[-1] = watch.steps[-1].model_copy(update={"bytes_streamed": got[1]})


ADD_NODE = AddNodeOperation()
