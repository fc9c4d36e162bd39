"""One folder per kind of fault: its object (satisfying :class:`~casslab.faults.fault_kind.
FaultKind`), its own fields, its checks and its action. They are registered by name in
:mod:`casslab.faults.fault_kinds`."""
