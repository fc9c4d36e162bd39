"""casslab.load: workloads for the Rust engine, and running it.

* Front ends, one folder each, registered by name in :mod:`.front_ends` (the seam:
  :class:`~.front_end.FrontEnd`): :mod:`.stress` (cassandra-stress command lines, user
  profiles) and :mod:`.ycsb` (``load|run``, the shipped core workloads). Each parses its
  syntax, builds the engine spec, composes an experiment's measured command, words engine
  failures in its own terms (:class:`~.engine.Wording`) and renders its console text
  (``console.py``; stress's ``-graph`` page in ``stress/graph.py``). :mod:`.run_outcome`
  words what any run's summary says went wrong; :mod:`.command_words` the words of a line.
* The contract with the engine (the spec, its records, the HDR log) is
  :mod:`casslab.engine_contract`.
* :mod:`.session`: the one load session every command and run spawns its engines through
  (one engine or several clients, the ``--engine-cpus`` cgroup, ``--check`` once per spec).
* :mod:`.engine`: spawning the engine and reading its records; :mod:`.credentials`:
  passwords kept off disk and command lines; :mod:`.defaults`: the default schemas;
  :mod:`.verify`: the read-back of acknowledged writes.
* Several clients: :mod:`.shares` splits a workload into N disjoint shares, :mod:`.clients`
  runs them (a ``Launcher`` seam; ``LocalLauncher`` on this machine), :mod:`.merge` merges
  their records and HDR logs exactly (docs/clients.md).
"""
