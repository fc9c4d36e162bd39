"""Faults injected into a running cluster on a timeline (kill, pause, stop), what each did
to the load (its window's rate and errors, the time to recover), and the manual
``casslab fault`` commands. :mod:`.model` is the file's ``faults:`` list, :mod:`.actions`
what one fault does to a node, :mod:`.timeline` runs them during a measured phase,
:mod:`.windows` measures them from the engine's intervals."""
