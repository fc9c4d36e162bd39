"""`casslab up --preset latest` on a real node: the settings cassandra_latest.yaml changes
are what the node runs (system_views.settings), the user's --set still wins, and a version
without the files, or a 4.x version, is refused before anything starts.

The machine's cached 5.0.9 (jars from Maven Central) has no conf/, so the first test runs it
from a CASSANDRA_HOME the test makes: the cached jars and a conf/ with cassandra.yaml and
cassandra_latest.yaml holding the lines of Cassandra 5.0's own files for the settings
checked there. 5.0.1 runs from the cache alone, on the whole preset casslab derived from its
source (latest_presets.yaml). A cluster of its own: it runs with other settings than the
shared node.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casslab.cluster import distribution
from casslab.cluster.local.cluster import LocalCluster
from casslab.cluster.model import ClusterState
from cli_entry import casslab
from jit import UP_LIGHT

pytestmark = [pytest.mark.integration]

NAME = "latest1"
DERIVED = "5.0.1"  # its preset is in casslab's latest_presets.yaml, from its source
PLACE = ["--heap", "512M", "--base-address", "127.0.133.1", "--jmx-port-base", "9330", *UP_LIGHT]
STOCK = """\
storage_compatibility_mode: CASSANDRA_4
default_secondary_index: legacy_local_table
default_secondary_index_enabled: true
concurrent_compactors: 2
"""
LATEST = """\
storage_compatibility_mode: NONE
default_secondary_index: sai
default_secondary_index_enabled: true
concurrent_compactors: 8
sstable:
  selected_format: bti
"""


def _home(tmp_path: Path) -> Path:
    cached = distribution.cached(distribution.DEFAULT_VERSION)
    if cached is None:
        pytest.skip(f"Cassandra {distribution.DEFAULT_VERSION} is not cached (casslab fetch)")
    home = tmp_path / "cassandra"
    (home / "conf").mkdir(parents=True)
    (home / "lib").symlink_to(cached.lib_dir)
    (home / "conf" / "cassandra.yaml").write_text(STOCK)
    (home / "conf" / "cassandra_latest.yaml").write_text(LATEST)
    return home


def test_up_with_the_latest_preset_runs_its_settings(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"CASSANDRA_HOME": str(_home(tmp_path))}
    up = casslab(
        home,
        "up",
        "--name",
        NAME,
        "--preset",
        "latest",
        "--set",
        "concurrent_compactors=4",
        *PLACE,
        env=env,
    )
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        state = json.loads((home / "clusters" / NAME / "state.json").read_text())
        assert state["spec"]["preset"] == "latest"
        cluster = LocalCluster(ClusterState.model_validate(state))
        applied = cluster.applied_settings()
        assert applied["storage_compatibility_mode"] == "NONE"
        assert applied["default_secondary_index"] == "sai"
        assert applied["sstable.selected_format"] == "bti"
        assert applied["concurrent_compactors"] == "4"  # --set wins over the preset
        said = " ".join(up.stdout.split())
        assert f"settings preset latest: 4 settings from {tmp_path / 'cassandra' / 'conf'}" in said
    finally:
        casslab(home, "down", "--remove", "--name", NAME)


def test_a_version_derived_from_its_source_runs_the_whole_preset(tmp_path: Path) -> None:
    """5.0.1 from the Maven cache alone (no conf/): its preset is the one casslab derived
    at the tag cassandra-5.0.1, every setting of it, and the node runs them."""
    home = tmp_path / "home"
    up = casslab(
        home,
        "up",
        "--name",
        NAME,
        "--version",
        DERIVED,
        "--preset",
        "latest",
        *PLACE,
        "--timeout",
        "300",
        unset=("CASSANDRA_HOME",),
    )
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        state = json.loads((home / "clusters" / NAME / "state.json").read_text())
        cluster = LocalCluster(ClusterState.model_validate(state))
        applied = cluster.applied_settings()
        assert applied["storage_compatibility_mode"] == "NONE"
        assert applied["sstable.selected_format"] == "bti"
        assert applied["memtable_allocation_type"] == "offheap_objects"
        assert applied["concurrent_compactors"] == "8"
        assert applied["uuid_sstable_identifiers_enabled"] == "true"
        assert applied["default_compaction.class_name"] == "UnifiedCompactionStrategy"
        assert "scaling_parameters=T4" in applied["default_compaction.parameters"]
        assert "default=trie" in applied["memtable.configurations"]
        assert state["spec"]["version"] == DERIVED
        said = " ".join(up.stdout.split())
        assert "settings preset latest: 14 settings from Cassandra 5.0.1's source, tag " in said
    finally:
        casslab(home, "down", "--remove", "--name", NAME)


def test_without_the_files_or_on_4x_nothing_starts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bare = casslab(
        home, "up", "--name", NAME, "--preset", "latest", *PLACE, unset=("CASSANDRA_HOME",)
    )
    assert bare.returncode == 1
    assert "has no" in bare.stderr
    assert "cassandra_latest.yaml" in bare.stderr
    assert "CASSANDRA_HOME" in bare.stderr
    old = casslab(
        home,
        "up",
        "--name",
        NAME,
        "--preset",
        "latest",
        "--version",
        "4.0.11",
        *PLACE,
        unset=("CASSANDRA_HOME",),
    )
    assert old.returncode == 1
    assert "Cassandra 4.0.11 has no cassandra_latest.yaml (it came with 5.0)" in old.stderr
    assert not (home / "clusters" / NAME).exists()
