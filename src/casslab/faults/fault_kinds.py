"""The registry of fault kinds: the one place a kind is registered, by name.

The experiment file's ``faults:``, ``casslab plan``'s checks, the run's timeline and
``casslab fault`` look a kind up here. Operations (restart, repair, ...) are kinds too,
ones that end when done (:mod:`casslab.faults.operation`). Adding a kind is one folder of
:mod:`casslab.faults.kinds` with an object satisfying
:class:`~casslab.faults.fault_kind.FaultKind`, and one :func:`register` line below.
"""

from __future__ import annotations

import difflib

from casslab.errors import ConfigError
from casslab.faults.fault_kind import FaultKind
from casslab.faults.kinds.add_node.add_node_operation import ADD_NODE
from casslab.faults.kinds.cleanup.cleanup_operation import CLEANUP
from casslab.faults.kinds.clock_jump.clock_jump_fault import CLOCK_JUMP
from casslab.faults.kinds.compact.compact_operation import COMPACT
from casslab.faults.kinds.decommission.decommission_operation import DECOMMISSION
from casslab.faults.kinds.flush.flush_operation import FLUSH
from casslab.faults.kinds.kill.kill_fault import KILL
from casslab.faults.kinds.partition.partition_fault import PARTITION
from casslab.faults.kinds.pause.pause_fault import PAUSE
from casslab.faults.kinds.repair.repair_operation import REPAIR
from casslab.faults.kinds.replace.replace_operation import REPLACE
from casslab.faults.kinds.restart.restart_operation import RESTART
from casslab.faults.kinds.slow_disk.slow_disk_fault import SLOW_DISK
from casslab.faults.kinds.stop.stop_fault import STOP
from casslab.faults.kinds.upgrade.upgrade_operation import UPGRADE

FAULT_KINDS: dict[str, FaultKind] = {}


def register(kind: FaultKind) -> None:
    """Make ``kind`` known by its name (a later one of the same name replaces it)."""
    FAULT_KINDS[kind.name] = kind


register(KILL)
register(PAUSE)
register(STOP)
register(CLOCK_JUMP)
register(PARTITION)
register(SLOW_DISK)
# operations: they end when done (faults/operation.py)
register(RESTART)
register(REPAIR)
register(CLEANUP)
register(FLUSH)
register(COMPACT)
register(DECOMMISSION)
register(ADD_NODE)
register(UPGRADE)
register(REPLACE)


def fault_kind(name: str) -> FaultKind:
    """The kind registered as ``name``; a :class:`ConfigError` naming the known ones."""
    found = FAULT_KINDS.get(name)
    if found is None:
        close = difflib.get_close_matches(name, list(FAULT_KINDS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        known = ", ".join(FAULT_KINDS)
        raise ConfigError(f"fault kind {name!r} is not known{hint}; known: {known}")
    return found
