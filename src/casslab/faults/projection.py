"""The cluster's node numbers along a timeline (pure). An operation that adds or removes a
node (add-node, decommission, replace) changes which numbers a later fault may name: a
fourth node added at 60 s can be decommissioned at 120 s, though the cluster has three
nodes when the timeline begins. Each operation says what it leaves
(:meth:`~casslab.faults.operation.NodeOperation.nodes_after`); the other kinds leave the
numbers as they are.

The timeline checks the faults up to the first operation that changes the numbers against
the live cluster, and every fault against the numbers projected here, before anything
starts; a fault after such an operation meets the live cluster's checks again when its time
comes. An experiment file's check projects its nodes 1 to N the same way (``casslab
plan``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.errors import ConfigError
from casslab.faults.fault_kind import Target
from casslab.faults.operation import NodeOperation

if TYPE_CHECKING:
    from casslab.faults.model import Fault


def in_order(faults: Sequence[Fault]) -> list[Fault]:
    """The faults in the order the timeline begins them (by ``at``; ties as written)."""
    return sorted(faults, key=lambda f: f.at_s)


@dataclass(frozen=True)
class Projection:
    """What :func:`project` found: the problems, and how many faults (in time order) come
    before the first change of the node numbers, that one included: those the live cluster
    can check before the timeline begins."""

    problems: tuple[str, ...]
    live_checked: int


def project(numbers: Iterable[int], faults: Sequence[Fault]) -> Projection:
    """Each fault (``faults[i]`` in the problems) against the node numbers the cluster
    will have at its time, given ``numbers`` at the timeline's start."""
    current = tuple(sorted(numbers))
    changed_by = ""
    live_checked: int | None = None
    problems: list[str] = []
    ordered = sorted(enumerate(faults), key=lambda item: item[1].at_s)
    for position, (i, fault) in enumerate(ordered):
        kind = fault.of_kind
        if kind.target is Target.NODE and fault.node not in current:
            problems.append(
                f"faults[{i}]: target node {fault.node}, but the cluster has "
                f"{len(current)} node(s){changed_by}"
            )
            continue
        if not isinstance(kind, NodeOperation):
            continue
        try:
            after_it = kind.nodes_after(current, fault)
        except ConfigError as error:
            problems.append(f"faults[{i}]: {fault.kind} node {fault.target}: {error}")
            continue
        if after_it != current:
            listed = ", ".join(str(n) for n in after_it)
            changed_by, current = f" after faults[{i}] ({fault.kind}): nodes {listed}", after_it
            if live_checked is None:
                live_checked = position + 1
    return Projection(
        problems=tuple(problems),
        live_checked=len(faults) if live_checked is None else live_checked,
    )
