"""The catalog of named workloads: cassandra-stress user profiles shipped with casslab in
``catalog/NAME.yaml`` and named ``profile=@NAME`` wherever a profile goes
(:mod:`casslab.workloads.named`)."""
