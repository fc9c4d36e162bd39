"""Settings presets: ``latest`` is what cassandra_latest.yaml changes against
cassandra.yaml (pure diff on literal files), read from the version's conf/ beside its lib/,
else from what casslab derived from the version's source (latest_presets.yaml); a version
with neither, or a 4.x version, is refused before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.cluster import cluster_spec
from casslab.cluster.distribution import Distribution
from casslab.cluster.presets import (
    canonical,
    conf_dir,
    derived,
    derived_entries,
    derived_versions,
    latest_changes,
    preset_changes,
    source_problem,
    version_key,
    version_problem,
    with_preset,
)
from casslab.errors import ConfigError, SetupError

DEFAULT_YAML = """\
# stock
cluster_name: 'Test Cluster'
storage_compatibility_mode: CASSANDRA_4
memtable:
  configurations:
    skiplist:
      class_name: SkipListMemtable
    default:
      inherits: skiplist
column_index_size: 4KiB
concurrent_compactors: 2
commitlog_directory: /var/lib/cassandra/commitlog
"""
LATEST_YAML = """\
cluster_name: 'Test Cluster'
storage_compatibility_mode: NONE
memtable:
  configurations:
    skiplist:
      class_name: SkipListMemtable
    trie:
      class_name: TrieMemtable
    default:
      inherits: trie
concurrent_compactors: 2
commitlog_directory: /var/lib/cassandra/commitlog2
default_secondary_index: sai
sstable:
  selected_format: bti
"""


def test_latest_is_what_the_latest_file_changes_or_adds() -> None:
    changes = latest_changes(DEFAULT_YAML, LATEST_YAML, source="/c/conf")
    assert changes.settings == {
        "storage_compatibility_mode": "NONE",
        "memtable": {
            "configurations": {
                "skiplist": {"class_name": "SkipListMemtable"},
                "trie": {"class_name": "TrieMemtable"},
                "default": {"inherits": "trie"},
            }
        },
        "commitlog_directory": "/var/lib/cassandra/commitlog2",
        "default_secondary_index": "sai",
        "sstable": {"selected_format": "bti"},
    }
    assert changes.unset == ["column_index_size"]
    assert changes.source == "/c/conf"


def test_equal_files_change_nothing_and_a_bad_file_is_named() -> None:
    assert latest_changes(DEFAULT_YAML, DEFAULT_YAML, source="s").settings == {}
    assert latest_changes("", "a: 1\n", source="s").settings == {"a": 1}
    with pytest.raises(ConfigError, match=r"s/cassandra_latest.yaml: expected cassandra.yaml"):
        latest_changes(DEFAULT_YAML, "- a list\n", source="s")
    with pytest.raises(ConfigError, match=r"s/cassandra.yaml: not valid YAML"):
        latest_changes("a: [", LATEST_YAML, source="s")


def test_preset_names() -> None:
    assert canonical(" Latest") == "latest"
    assert cluster_spec(name="x", preset="DEFAULT").preset == "default"
    with pytest.raises(ConfigError, match="casslab knows default, latest"):
        canonical("newest")
    assert version_problem("latest", "4.1.5") is not None
    assert "Cassandra 4.1.5 has no cassandra_latest.yaml" in (
        version_problem("latest", "4.1.5") or ""
    )
    assert version_problem("latest", "5.0.9") is None
    assert version_problem("latest", None) is None
    assert version_problem("default", "4.0.11") is None


def _dist(tmp_path: Path, version: str) -> Distribution:
    lib = tmp_path / "lib"
    lib.mkdir()
    return Distribution(version=version, lib_dir=lib, source="maven", main_jar=lib / "c.jar")


def test_the_files_are_read_from_the_versions_conf(tmp_path: Path) -> None:
    dist = _dist(tmp_path, "5.0.9")
    assert conf_dir(dist) == tmp_path / "conf"
    with pytest.raises(SetupError) as missing:
        preset_changes("latest", dist)
    message = str(missing.value)
    assert f"{tmp_path / 'conf' / 'cassandra.yaml'} or " in message
    assert "apache-cassandra-5.0.9-bin.tar.gz" in message
    assert "CASSANDRA_HOME" in message
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "cassandra.yaml").write_text(DEFAULT_YAML)
    (tmp_path / "conf" / "cassandra_latest.yaml").write_text(LATEST_YAML)
    assert preset_changes("latest", dist).settings["storage_compatibility_mode"] == "NONE"
    assert preset_changes("default", dist).settings == {}
    merged = with_preset(
        "latest",
        dist,
        {"concurrent_compactors": 4, "storage_compatibility_mode": "UPGRADING"},
        reserved={"commitlog_directory"},
    )
    assert merged["storage_compatibility_mode"] == "UPGRADING"  # the user's setting wins
    assert merged["concurrent_compactors"] == 4
    assert merged["default_secondary_index"] == "sai"
    assert "commitlog_directory" not in merged  # casslab's own, per node
    assert with_preset(None, dist, {"a": 1}, reserved=()) == {"a": 1}


def test_a_4x_version_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SetupError, match=r"Cassandra 4.0.11 has no cassandra_latest.yaml"):
        preset_changes("latest", _dist(tmp_path, "4.0.11"))


def test_a_version_derived_from_its_source_runs_from_the_cache_alone(tmp_path: Path) -> None:
    """5.0.1's entry in latest_presets.yaml (scripts/derive_latest_preset.py at the tag
    cassandra-5.0.1) stands in for a conf/ the Maven cache has not; the files win."""
    dist = _dist(tmp_path, "5.0.1")
    changes = preset_changes("latest", dist)
    assert "tag cassandra-5.0.1 (commit c206e4509003ac4cd99147d821bd4b5d23bdf5e8)" in (
        changes.source
    )
    assert changes.settings["storage_compatibility_mode"] == "NONE"
    assert changes.settings["sstable"] == {"selected_format": "bti"}
    assert changes.settings["default_compaction"]["class_name"] == "UnifiedCompactionStrategy"
    assert changes.settings["memtable"]["configurations"]["default"] == {"inherits": "trie"}
    assert "key_cache_save_period" in changes.unset
    assert derived("5.0.9") is None  # never another version's files
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "cassandra.yaml").write_text(DEFAULT_YAML)
    (tmp_path / "conf" / "cassandra_latest.yaml").write_text(LATEST_YAML)
    from_files = preset_changes("latest", dist)
    assert from_files.source == str(tmp_path / "conf")
    assert "default_compaction" not in from_files.settings


def test_the_refusal_names_the_derived_versions(tmp_path: Path) -> None:
    with pytest.raises(SetupError) as missing:
        preset_changes("latest", _dist(tmp_path, "5.0.9"))
    assert "casslab has not derived its preset from the source (it has for 5.0.0, 5.0.1)" in (
        str(missing.value)
    )
    assert derived_versions() == ["5.0.0", "5.0.1"]


def test_derived_entries_are_read_and_sorted_by_number() -> None:
    text = "versions:\n  5.0.10: {source: s, settings: {a: 1}, unset: []}\n"
    assert derived_entries(text) == {"5.0.10": {"source": "s", "settings": {"a": 1}, "unset": []}}
    assert derived_entries("") == {}
    with pytest.raises(ConfigError, match="'versions' is not a mapping"):
        derived_entries("versions: [1]\n")
    assert sorted(["5.0.10", "5.0.9", "5.0.1"], key=version_key) == ["5.0.1", "5.0.9", "5.0.10"]


def test_the_source_of_the_preset_is_asked_before_anything_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """source_problem: the files of the distribution casslab would run (the cache's, or
    CASSANDRA_HOME's when it is that version), else a derived preset, else the problem;
    nothing is fetched."""
    monkeypatch.setenv("CASSLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CASSANDRA_HOME", raising=False)
    problem = source_problem("5.0.9") or ""
    assert str(tmp_path / "cache" / "cassandra" / "5.0.9" / "conf" / "cassandra.yaml") in problem
    assert "apache-cassandra-5.0.9-bin.tar.gz" in problem
    assert source_problem("5.0.1") is None  # derived from its source
    assert "Cassandra 4.1.5 has no cassandra_latest.yaml" in (source_problem("4.1.5") or "")
    assert not (tmp_path / "cache").exists()
    conf = tmp_path / "cache" / "cassandra" / "5.0.9" / "conf"
    conf.mkdir(parents=True)
    (conf / "cassandra.yaml").write_text(DEFAULT_YAML)
    assert "cassandra_latest.yaml" in (source_problem("5.0.9") or "")
    (conf / "cassandra_latest.yaml").write_text(LATEST_YAML)
    assert source_problem("5.0.9") is None
    assert source_problem(None) is None  # the default version, 5.0.9
    home = tmp_path / "tarball"
    (home / "lib").mkdir(parents=True)
    (home / "lib" / "apache-cassandra-5.0.7.jar").write_text("")
    monkeypatch.setenv("CASSANDRA_HOME", str(home))
    assert str(home / "conf" / "cassandra.yaml") in (source_problem(None) or "")
    assert str(home / "conf") in (source_problem("5.0.7") or "")
    assert source_problem("5.0.9") is None  # another version: the cache's files
    (home / "conf").mkdir()
    for name in ("cassandra.yaml", "cassandra_latest.yaml"):
        (home / "conf" / name).write_text("")
    assert source_problem(None) is None
