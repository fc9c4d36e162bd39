"""What a kind of fault is: the :class:`FaultKind` protocol every kind's folder under
:mod:`casslab.faults.kinds` satisfies, and what it is given.

A kind has a name (the file's ``kind:`` and the ``casslab fault`` command), its own fields
(a :class:`~casslab.record.Record` of what the file writes besides ``at``, ``kind``,
``target`` and ``for``), the kind of target it takes (a node, or a place: a datacenter or
a link), checks against the experiment file (:class:`FileFacts`) and against the cluster's
capabilities (:mod:`casslab.cluster.capabilities`), and its action: :meth:`FaultKind.begin`
puts the target under it and returns what :meth:`FaultKind.end` needs to bring it back.
The registry that names them is :mod:`casslab.faults.fault_kinds`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from pydantic import ConfigDict

from casslab.record import Record

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.faults.model import Fault

Undo = object
"""What a kind's ``begin`` returned, handed back to its ``end`` (its own type: a clock's
offset before, the links cut, a throttle's files)."""


class Target(StrEnum):
    """What a kind's ``target`` names."""

    NODE = "node"  # a node's number (2) or name (node2)
    PLACE = "place"  # a datacenter (dc3) or a link (dc1-dc3)
    NEW_NODE = "new node"  # the number of the node it adds (add-node: the next one)
    CLUSTER = "cluster"  # every node, one after the other (upgrade): written ``all``


class NoFields(Record):
    """The fields of a kind that has none beyond ``at``, ``kind``, ``target`` and ``for``."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class FileFacts(Protocol):
    """What the experiment file says of its clusters, as a kind's file check needs it."""

    @property
    def may_have_topology(self) -> bool:
        """A topology given or varied, or one the file cannot show (a cluster it uses, an
        inventory's hosts): the run checks their datacenters when it meets them."""
        ...

    def not_isolated(self) -> str | None:
        """Where some trial's nodes are in no casslab cgroup, in words ("trial x has plain
        nodes", "run on another machine's nodes"); None when every trial's are."""
        ...


class FaultKind(Protocol):
    """One kind of fault. Its folder holds the object, its fields and its checks; one
    :func:`~casslab.faults.fault_kinds.register` line makes it known by :attr:`name`."""

    @property
    def name(self) -> str:
        """The file's ``kind:`` and the ``casslab fault`` command (``slow-disk``)."""
        ...

    @property
    def fields(self) -> type[Record]:
        """Its own fields as the file writes them (aliases), validated and typed;
        :class:`NoFields` when it has none."""
        ...

    @property
    def target(self) -> Target:
        """What its ``target`` names."""
        ...

    @property
    def marks_down(self) -> bool:
        """The other nodes may mark its target down: the timeline watches their failure
        detector (kill, pause, stop, partition); False when the node stays up."""
        ...

    @property
    def ends_jvm(self) -> bool:
        """Its node's JVM ends (kill, stop): its hint counters are read just before."""
        ...

    @property
    def ends_when_done(self) -> bool:
        """An operation (restart, repair): it has no ``for``; :meth:`begin` runs it to its
        end and returns an :class:`~casslab.faults.operation.OperationDone`, and
        :meth:`end` has nothing to bring back."""
        ...

    @property
    def steps_clock(self) -> bool:
        """It steps a node's clock: the run's nodes must run casslab's clock."""
        ...

    @property
    def reshapes_cluster(self) -> bool:
        """It leaves the cluster other than the trial's setup built it (another version,
        other nodes: upgrade, add-node, decommission, replace): the run's next trial gets
        a new cluster."""
        ...

    def describe(self, fields: Record) -> str:
        """What its own fields add to a fault's description (`` by -5000 ms``), or ""."""
        ...

    def file_problems(self, index: int, fault: Fault, facts: FileFacts) -> list[str]:
        """Problems of ``faults[index]`` in an experiment file (pure; ``casslab plan``)."""
        ...

    def check(self, cluster: Cluster, fault: Fault) -> None:
        """Raise :class:`~casslab.errors.ConfigError` when ``cluster`` cannot take
        ``fault`` (asked of its capabilities, before anything starts)."""
        ...

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        """Put the fault's target under it; what :meth:`end` will need."""
        ...

    def end(self, cluster: Cluster, fault: Fault, undo: Undo, timeout_s: float) -> None:
        """Bring the target back (a started node: ready within ``timeout_s``) with what
        :meth:`begin` returned (None when it never began)."""
        ...
