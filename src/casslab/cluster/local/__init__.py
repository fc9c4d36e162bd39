"""The ``local`` backend: Cassandra JVMs on 127.0.0.n of this machine (its cluster class in
:mod:`.cluster`, its spec variant in :mod:`.local_spec`). The cluster model imports the
variant, so this package imports nothing at its top."""
