"""Everything above the cluster package reaches clusters through the ``Cluster`` protocol and
the registry: no module outside ``casslab/cluster/`` names a backend's own module."""

from __future__ import annotations

from import_rules import SRC, offending_imports

BACKEND_MODULES = ("casslab.cluster.local", "casslab.cluster.LocalCluster")


def test_only_the_cluster_package_names_a_backend() -> None:
    outside = [p for p in SRC.rglob("*.py") if "cluster" not in p.relative_to(SRC).parts[:1]]
    assert outside  # the walk found the other packages
    assert offending_imports(outside, BACKEND_MODULES) == set()
