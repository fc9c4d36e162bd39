"""A cluster's life through the real CLI: `up` of a stopped cluster keeps its data, a
different shape is refused, `--fresh` starts empty, nodetool's own message is shown,
Cassandra's refusal comes first, and the current-cluster pointer never names a cluster
that does not exist (real Cassandra nodes)."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cassandra.cluster import Cluster

from cli_entry import casslab, flat, processes_under
from jit import UP_LIGHT

pytestmark = pytest.mark.integration

ADDRESS = "127.0.180.1"
PLACE = ["--heap", "512M", "--base-address", ADDRESS, "--jmx-port-base", "8400", *UP_LIGHT]


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    for name in ("keep", "refused"):
        if (tmp_path / "clusters" / name).exists():
            casslab(tmp_path, "down", "--remove", "--name", name)
    assert processes_under(tmp_path) == []


def _rows(query: str) -> list[tuple[object, ...]]:
    driver = Cluster([ADDRESS], connect_timeout=10)
    try:
        return [tuple(row) for row in driver.connect().execute(query)]
    finally:
        driver.shutdown()


def test_a_stopped_cluster_starts_with_its_data(home: Path) -> None:
    created = casslab(home, "up", "--name", "keep", *PLACE)
    assert created.returncode == 0, created.stderr
    assert "cluster keep created" in flat(created.stdout)
    directory = home / "clusters" / "keep"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700  # state can hold credentials
    _rows(
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
    )
    _rows("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
    _rows("INSERT INTO ks.t (k, v) VALUES (1, 'kept')")

    bogus = casslab(home, "nodetool", "1", "bogusverb")
    assert bogus.returncode == 1
    assert "Found unexpected parameters: [bogusverb]" in flat(bogus.stderr)
    assert "ch.qos.logback" not in bogus.stderr + bogus.stdout

    again = casslab(home, "up", "--name", "keep")
    assert again.returncode == 1
    assert "cluster 'keep' is already running" in flat(again.stderr)

    assert casslab(home, "down", "--name", "keep").returncode == 0
    other = casslab(home, "up", "--name", "keep", "--nodes", "2")
    assert other.returncode == 1
    assert "nodes: asked 2, the stored cluster has 1" in flat(other.stderr)
    assert "--fresh" in other.stderr
    assert processes_under(directory) == []  # nothing was started

    restarted = casslab(home, "up", "--name", "keep")
    assert restarted.returncode == 0, restarted.stderr
    assert "cluster keep started with its data" in flat(restarted.stdout)
    assert _rows("SELECT k, v FROM ks.t") == [(1, "kept")]

    # casslab killed before it recorded the PID: `down` still finds the JVM by directory.
    state = json.loads((directory / "state.json").read_text())
    for node in state["nodes"]:
        node["pid"] = node["pid_start_time"] = None
    (directory / "state.json").write_text(json.dumps(state))
    assert len(processes_under(directory)) == 1
    assert casslab(home, "down", "--name", "keep").returncode == 0
    assert processes_under(directory) == []
    fresh = casslab(home, "up", "--name", "keep", "--fresh", *PLACE)
    assert fresh.returncode == 0, fresh.stderr
    assert "cluster keep created" in flat(fresh.stdout)
    assert _rows("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name='ks'") == []

    # A state file nobody can read: `down --remove` still finds the JVM by its directory.
    (directory / "state.json").write_text("{ not json")
    assert len(processes_under(directory)) == 1
    removed = casslab(home, "down", "--remove", "--name", "keep")
    assert removed.returncode == 0, removed.stderr
    assert processes_under(directory) == []
    assert not directory.exists()
    status = casslab(home, "status")
    assert "no cluster: start one with `casslab up" in flat(status.stderr)


def test_cassandra_refusal_comes_first_and_the_failed_cluster_is_not_current(
    home: Path,
) -> None:
    # A range casslab does not know: Cassandra itself refuses, after its configuration dump.
    refused = casslab(
        home, "up", "--name", "refused", "--set", "snapshot_links_per_second=-1", *PLACE
    )
    assert refused.returncode == 1
    first = refused.stderr.strip().splitlines()[0]
    assert first == "Error: Cassandra refused to start: snapshot_links_per_second must be >= 0"
    assert max(len(line) for line in refused.stderr.splitlines()) < 400  # no config dump
    assert processes_under(home / "clusters" / "refused") == []
    status = casslab(home, "status")
    assert "no cluster: start one with `casslab up" in flat(status.stderr)
