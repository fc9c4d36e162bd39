"""What one fault does, looked up by its kind's name in the registry
(:mod:`casslab.faults.fault_kinds`): the one door the timeline and ``casslab fault`` go
through. Each kind checks the cluster's capabilities (:mod:`casslab.cluster.capabilities`)
and is refused with the backend's own reason when it lacks one; what each kind does is in
its folder under :mod:`casslab.faults.kinds`."""

from __future__ import annotations

from casslab.cluster import Cluster
from casslab.faults.fault_kind import Undo
from casslab.faults.model import Fault


def check(cluster: Cluster, fault: Fault) -> None:
    """Raise :class:`~casslab.errors.ConfigError` when ``cluster`` cannot take ``fault``
    (before anything starts): an attached cluster; a slow disk on a node in no cgroup."""
    fault.of_kind.check(cluster, fault)


def begin(cluster: Cluster, fault: Fault) -> Undo:
    """Put the fault's target under it; what :func:`end` will need to undo it."""
    return fault.of_kind.begin(cluster, fault)


def end(cluster: Cluster, fault: Fault, timeout_s: float, undo: Undo = None) -> None:
    """Bring the fault's target back (a started node: ready when this returns; a clock:
    stepped back; links: healed), with what :func:`begin` returned."""
    fault.of_kind.end(cluster, fault, undo, timeout_s)
