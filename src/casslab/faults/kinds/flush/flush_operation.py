"""``kind: flush``: ``nodetool flush`` on node ``target``; it ends when nodetool returns."""

from __future__ import annotations

from dataclasses import dataclass

from casslab.faults.operation import NodetoolOperation


@dataclass(frozen=True)
class FlushOperation(NodetoolOperation):
    name: str = "flush"


FLUSH = FlushOperation()
