"""casslab.engine_contract: what crosses the boundary between Python and the Rust engine.

* :mod:`.workload_spec`: the typed :class:`~.workload_spec.WorkloadSpec` the engine reads
  (``schema_version``; the engine checks the same rules, ``engine/contract/``).
* :mod:`.engine_records`: the records the engine writes back (intervals, errors, summary).
* :mod:`.hdr`: reading the engine's HdrHistogram interval log; :mod:`.hdr_encode`: writing
  one (a merge of several clients' logs).

A layer of its own, below the store and the statistics (both read what the engine wrote):
it imports only the ground floor.
"""
