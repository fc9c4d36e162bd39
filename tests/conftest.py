"""Shared fixtures: the session's casslab home, and the real Cassandra clusters that test
modules share (always stopped).

A test module that only needs "a node" uses :func:`shared_node`'s cluster through a
module fixture made by :func:`emptied`: every user keyspace and snapshot is dropped before
and after the module, so each module starts on an empty node as it did on a node of its
own, and no module pays a node start of its own. A module that changes what a node is
(settings, a restart, a killed or paused node, authentication, TLS, limits, clocks) makes
its own cluster and says why in its docstring.

Under pytest-xdist each worker has its own shared clusters (:mod:`shared_clusters`);
``make test`` gives a test module to one worker (``--dist loadfile``), so a module's fixed
addresses are never in use twice.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster import LocalCluster
from jit import session_measures
from module_order import TIMES, longest_first, read_times
from shared_clusters import shared_spec

# CPU-seconds per module when CASSLAB_TEST_CPU_DIR is set (make test's real-node phase)
pytest_plugins = ("cpu_accounting",)

# A suite started in the background of a shell without job control (`make test &` in a
# script, CI runners) inherits SIGINT ignored, and so would every casslab it starts: casslab
# keeps an ignored signal ignored (`nohup casslab run` must survive), so its Ctrl-C tests
# would test nothing. The tests' own processes get Python's default SIGINT handling, as a
# terminal gives them.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def clusters_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("clusters")


@pytest.fixture(scope="session")
def casslab_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's ``CASSLAB_HOME``: the shared clusters live in its ``clusters/``."""
    return tmp_path_factory.mktemp("casslab-home")


@pytest.fixture(scope="session", autouse=True)
def _isolated_home(casslab_home: Path) -> Iterator[None]:
    """Tests never touch the user's clusters (the Cassandra jar cache is shared)."""
    old = os.environ.get("CASSLAB_HOME")
    os.environ["CASSLAB_HOME"] = str(casslab_home)
    yield
    if old is None:
        os.environ.pop("CASSLAB_HOME", None)
    else:
        os.environ["CASSLAB_HOME"] = old


@pytest.fixture(scope="session")
def shared_node(casslab_home: Path, request: pytest.FixtureRequest) -> Iterator[LocalCluster]:
    """One plain node (512M heap, stock settings) for the whole session, started when a
    module first asks for it; use it through :func:`shared_clusters.emptied`."""
    spec = shared_spec("node", measuring=session_measures(request))
    with LocalCluster.create(spec, casslab_home / "clusters", remove_on_exit=True) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def shared_three(casslab_home: Path) -> Iterator[LocalCluster]:
    """Three plain nodes (512M heaps, stock settings, light JVMs: shared_clusters says
    why) for the whole session; use it through :func:`shared_clusters.emptied`."""
    spec = shared_spec("three")
    with LocalCluster.create(spec, casslab_home / "clusters", remove_on_exit=True) as cluster:
        yield cluster


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules in run order (:mod:`module_order`). A `measuring` test runs alone in
    `make test`'s last phase, whether it needs a node or only the machine (a cgroup's
    throttling): the no-node phase and `make test-fast` select ``not measuring``."""
    # the longest modules first, so the two workers of `make test` end close together
    times = read_times(TIMES.read_text()) if TIMES.is_file() else {}
    order = longest_first([item.nodeid for item in items], times)
    items[:] = [items[i] for i in order]
