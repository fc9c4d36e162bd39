"""The isolated backend: nodes in their own cgroups and network namespaces (see
:mod:`casslab.cluster.isolated.cluster`). What its state keeps (:mod:`.isolated_state`) is
imported by the cluster model, so this package imports nothing at its top."""
