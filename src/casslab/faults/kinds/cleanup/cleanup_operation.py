"""``kind: cleanup``: ``nodetool cleanup`` on node ``target``; it ends when nodetool returns."""

from __future__ import annotations

from dataclasses import dataclass

from casslab.faults.operation import NodetoolOperation


@dataclass(frozen=True)
class CleanupOperation(NodetoolOperation):
    name: str = "cleanup"


CLEANUP = CleanupOperation()
