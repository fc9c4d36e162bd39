"""Faults injected into a running cluster on a timeline (kill, pause, stop, clock-jump,
partition, slow-disk), what each did to the load (its window's rate and errors, the time
to recover) and to the cluster (hints written and replayed), and the manual ``casslab
fault`` commands. :mod:`.model` is the file's ``faults:`` list, :mod:`.actions` what one
fault does to a node (:mod:`.slow_disk` the block-I/O throttle), :mod:`.timeline` runs
them during a measured phase, :mod:`.windows` measures them from the engine's intervals,
:mod:`.hints` counts the hints over the timeline."""
