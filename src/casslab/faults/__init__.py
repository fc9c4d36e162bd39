"""Faults injected into a running cluster on a timeline, what each did to the load (its
window's rate and errors, the time to recover) and to the cluster (hints written and
replayed), and the manual ``casslab fault`` commands. A kind of fault (kill, pause, stop,
clock-jump, partition, slow-disk) is one folder of :mod:`.kinds` satisfying
:class:`~.fault_kind.FaultKind`, registered by name in :mod:`.fault_kinds`. :mod:`.model`
is the file's ``faults:`` list, :mod:`.actions` the one door to a kind's action,
:mod:`.timeline` runs them during a measured phase, :mod:`.windows` measures them from the
engine's intervals, :mod:`.hints` counts the hints over the timeline."""
