"""The ``external`` backend: a cluster casslab did not start (``casslab attach``), reached
over CQL only: load, CQL-visible metrics and reports; never a restart or a wipe."""
