"""Everything above the cluster package reaches clusters through the ``Cluster`` protocol,
its capabilities and the registry: no module outside ``casslab/cluster/`` names a
backend's own module (every folder of the cluster package is a backend)."""

from __future__ import annotations

from import_rules import SRC, offending_imports

BACKENDS = sorted(
    p.name for p in (SRC / "cluster").iterdir() if p.is_dir() and (p / "__init__.py").is_file()
)
BACKEND_MODULES = (
    *(f"casslab.cluster.{backend}" for backend in BACKENDS),
    "casslab.cluster.LocalCluster",
)


def test_the_backends_are_found() -> None:
    assert {"local", "isolated", "external", "ssh"} <= set(BACKENDS)


def test_only_the_cluster_package_names_a_backend() -> None:
    outside = [p for p in SRC.rglob("*.py") if "cluster" not in p.relative_to(SRC).parts[:1]]
    assert outside  # the walk found the other packages
    assert offending_imports(outside, BACKEND_MODULES) == set()
