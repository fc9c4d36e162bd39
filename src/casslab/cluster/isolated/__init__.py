"""The isolated backend: nodes in their own cgroups and network namespaces (see
:mod:`casslab.cluster.isolated.cluster`). Its records (:mod:`.records`) are imported by
the cluster model, so this package imports nothing at its top."""
