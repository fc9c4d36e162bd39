"""``kind: partition``: the emulated links of a topology cut (every link of datacenter
``target``, or one link ``dc1-dc3``) through their keeper (:mod:`casslab.net.cuts`), and
healed after ``for``. Needs links that can be cut (a cluster made with a topology)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.cluster.capabilities import links_of
from casslab.faults import node_signals
from casslab.faults.fault_kind import FileFacts, NoFields, Target, Undo
from casslab.net import cuts
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault


@dataclass(frozen=True)
class PartitionFault:
    name: str = "partition"
    fields: type[Record] = NoFields
    target: Target = Target.PLACE
    marks_down: bool = True  # the other side marks the cut-off nodes down
    ends_jvm: bool = False
    steps_clock: bool = False
    reshapes_cluster: bool = False
    ends_when_done: bool = False

    def describe(self, fields: Record) -> str:
        return ""

    def file_problems(self, index: int, fault: Fault, facts: FileFacts) -> list[str]:
        if facts.may_have_topology:
            return []
        return [
            f"faults[{index}]: a partition cuts a topology's links, and this experiment "
            "has no topology; add cluster.topology (e.g. dc1:2,dc2:1) or remove the fault"
        ]

    def check(self, cluster: Cluster, fault: Fault) -> None:
        node_signals.check_faultable(cluster)

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        """Cut the links the target names; their names."""
        node_signals.check_faultable(cluster)
        directory = links_of(cluster).keeper_dir()
        chosen = cuts.chosen_links(directory, str(fault.target))
        cuts.set_cut(directory, chosen, cut=True)
        return chosen

    def end(self, cluster: Cluster, fault: Fault, undo: Undo, timeout_s: float) -> None:
        links = [str(link) for link in undo] if isinstance(undo, list) else []
        cuts.set_cut(links_of(cluster).keeper_dir(), links, cut=False)


PARTITION = PartitionFault()
