"""casslab.load: workloads for the Rust engine, and running it.

* The contract with the engine (the spec, its records, the HDR log) is
  :mod:`casslab.engine_contract`.
* :mod:`.stress`: the cassandra-stress front end (command lines, user profiles);
  :mod:`.ycsb`: the YCSB front end (``load|run``, the shipped core workloads).
* :mod:`.engine`: spawning the engine and reading its records; :mod:`.credentials`:
  passwords kept off disk and command lines; :mod:`.defaults`: the default schemas;
  :mod:`.wording`: engine failures in each front end's words.
* Several clients: :mod:`.shares` splits a workload into N disjoint shares, :mod:`.clients`
  runs them (a ``Launcher`` seam; ``LocalLauncher`` on this machine), :mod:`.merge` merges
  their records and HDR logs exactly (docs/clients.md).

Terminal output (cassandra-stress rows, YCSB lines, ``-graph`` pages) lives in the CLI
(:mod:`casslab.cli.stress_render`, :mod:`casslab.cli.stress_graph`).
"""
