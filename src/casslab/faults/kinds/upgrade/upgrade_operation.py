"""``kind: upgrade``, ``target: all``, ``to: 5.0.9``: a rolling upgrade. Node by node, in
number order: ``nodetool drain``, stop, start on the new version with the same data, and
wait until every node sees every other UP/NORMAL before the next; in between the cluster
runs two versions. Refused before anything starts: a version the cluster's JDK cannot run
(or that cannot be fetched), a cluster whose nodes casslab does not run. Steps per node:
drain, stop, start; ``casslab upgrade --to`` runs the same by hand."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field

from casslab.cluster.capabilities import processes_of, versions_of
from casslab.faults.fault_kind import Target
from casslab.faults.kinds.restart.restart_operation import restart_node
from casslab.faults.operation import NodeOperation, Stopwatch
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


class UpgradeFields(Record):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    to: str = Field(pattern=r"^[0-9]+\.[0-9]+(\.[0-9]+)?([.-][A-Za-z0-9]+)*$")


@dataclass(frozen=True)
class UpgradeOperation(NodeOperation):
    name: str = "upgrade"
    fields: type[Record] = UpgradeFields
    target: Target = Target.CLUSTER
    ends_jvm: bool = True
    reshapes_cluster: bool = True

    def describe(self, fields: Record) -> str:
        return f" to {fields.to}" if isinstance(fields, UpgradeFields) else ""

    def check(self, cluster: Cluster, fault: Fault) -> None:
        processes_of(cluster)
        assert isinstance(fault.fields, UpgradeFields)
        versions_of(cluster).check_version(fault.fields.to)

    def run(self, cluster: Cluster, fault: Fault, watch: Stopwatch) -> None:
        assert isinstance(fault.fields, UpgradeFields)
        upgrade(cluster, fault.fields.to, watch)


def upgrade(cluster: Cluster, version: str, watch: Stopwatch) -> None:
    """Move every node of ``cluster`` to ``version``, one at a time (steps in ``watch``)."""
    versions = versions_of(cluster)
    exact = versions.check_version(version)
    for number in [node.number for node in cluster.nodes]:
        restart_node(
            cluster, number, watch, before_start=partial(versions.set_version, number, exact)
        )
    versions.finish(exact)


UPGRADE = UpgradeOperation()
