"""Shared fixtures: real Cassandra clusters for integration tests, always stopped."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster import ClusterSpec, LocalCluster


@pytest.fixture(scope="session")
def clusters_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("clusters")


@pytest.fixture(scope="session", autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests never touch the user's clusters (the Cassandra jar cache is shared)."""
    home = tmp_path_factory.mktemp("casslab-home")
    old = os.environ.get("CASSLAB_HOME")
    os.environ["CASSLAB_HOME"] = str(home)
    yield
    if old is None:
        os.environ.pop("CASSLAB_HOME", None)
    else:
        os.environ["CASSLAB_HOME"] = old


@pytest.fixture(scope="module")
def one_node(clusters_dir: Path) -> Iterator[LocalCluster]:
    """A one-node cluster on 127.0.0.1 (512M heap), shared by a test module."""
    spec = ClusterSpec(
        name="one", nodes=1, heap="512M", base_address="127.0.100.1", jmx_port_base=7600
    )
    with LocalCluster.create(spec, clusters_dir, remove_on_exit=True) as cluster:
        yield cluster
