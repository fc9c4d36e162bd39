from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from casslab.cluster.classfile import parse_class
from casslab.cluster.settings import (
    SettingKind,
    SettingsCatalogue,
    SettingType,
    catalogue_from_jar,
    check_settings,
    normalize,
    parse_assignment,
)
from casslab.errors import ConfigError


def _t(kind: SettingKind, *choices: str) -> SettingType:
    return SettingType(kind=kind, java_type="x", choices=choices)


CATALOGUE = SettingsCatalogue(
    cassandra_version="5.0.9",
    settings={
        "memtable_flush_writers": _t(SettingKind.INT),
        "memtable_cleanup_threshold": _t(SettingKind.FLOAT),
        "memtable_heap_space": _t(SettingKind.DATA_STORAGE),
        "compaction_throughput": _t(SettingKind.DATA_RATE),
        "concurrent_compactors": _t(SettingKind.INT),
        "read_request_timeout": _t(SettingKind.DURATION),
        "auto_snapshot": _t(SettingKind.BOOL),
        "cluster_name": _t(SettingKind.STRING),
        "disk_access_mode": _t(SettingKind.ENUM, "auto", "mmap", "mmap_index_only", "standard"),
        "seed_provider": _t(SettingKind.STRUCTURE),
    },
)


@pytest.mark.parametrize(
    ("settings", "problems"),
    [
        ({"memtable_flush_writers": 6, "memtable_cleanup_threshold": 0.14}, []),
        ({"memtable_heap_space": "2048MiB", "compaction_throughput": "16MiB/s"}, []),
        ({"read_request_timeout": "5000ms", "auto_snapshot": False}, []),
        ({"concurrent_compactors": 24, "disk_access_mode": "MMAP_INDEX_ONLY"}, []),
        ({"memtable_heap_space": None}, []),
        (
            {"memtable_flush_writer": 6},
            [
                "memtable_flush_writer: unknown cassandra.yaml setting in Cassandra 5.0.9 "
                "(did you mean memtable_flush_writers?)"
            ],
        ),
        (
            {"concurrent_compactors": "many"},
            ["concurrent_compactors: expected an integer, got 'many'"],
        ),
        ({"concurrent_compactors": True}, ["concurrent_compactors: expected an integer, got True"]),
        (
            {"memtable_cleanup_threshold": "low"},
            ["memtable_cleanup_threshold: expected a number, got 'low'"],
        ),
        (
            {"memtable_heap_space": 2048},
            ["memtable_heap_space: expected a size like 2048MiB or 1GiB, got 2048"],
        ),
        (
            {"memtable_heap_space": "2GB"},
            ["memtable_heap_space: expected a size like 2048MiB or 1GiB, got '2GB'"],
        ),
        (
            {"compaction_throughput": 16},
            ["compaction_throughput: expected a rate like 16MiB/s or 512KiB/s, got 16"],
        ),
        (
            {"read_request_timeout": "5 s"},
            ["read_request_timeout: expected a duration like 10s, 500ms or 2h, got '5 s'"],
        ),
        (
            {"auto_snapshot": "yes please"},
            ["auto_snapshot: expected true or false, got 'yes please'"],
        ),
        (
            {"disk_access_mode": "fast"},
            ["disk_access_mode: expected one of auto, mmap, mmap_index_only, standard, got 'fast'"],
        ),
        (
            {"memtable_heap_space_in_mb": 2048, "concurrent_compactors": 1.5},
            [
                "memtable_heap_space_in_mb: unknown cassandra.yaml setting in Cassandra 5.0.9 "
                "(did you mean memtable_heap_space?)",
                "concurrent_compactors: expected an integer, got 1.5",
            ],
        ),
    ],
)
def test_check_settings(settings: dict[str, Any], problems: list[str]) -> None:
    assert check_settings(settings, CATALOGUE) == problems


def test_normalize_spells_enums_as_cassandra_does_and_lists_all_problems() -> None:
    assert normalize({"disk_access_mode": "MMAP"}, CATALOGUE) == {"disk_access_mode": "mmap"}
    with pytest.raises(ConfigError) as info:
        normalize({"a_b_c": 1, "concurrent_compactors": "x"}, CATALOGUE)
    assert "a_b_c: unknown" in str(info.value)
    assert "concurrent_compactors: expected an integer" in str(info.value)
    assert "nothing was started" in str(info.value)


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("memtable_flush_writers=6", ("memtable_flush_writers", 6)),
        ("memtable_cleanup_threshold=0.14", ("memtable_cleanup_threshold", 0.14)),
        ("compaction_throughput=16MiB/s", ("compaction_throughput", "16MiB/s")),
        ("auto_snapshot=false", ("auto_snapshot", False)),
        ("cluster_name=a=b", ("cluster_name", "a=b")),
        ("memtable_heap_space=", ("memtable_heap_space", "")),
    ],
)
def test_parse_assignment(text: str, pair: tuple[str, Any]) -> None:
    assert parse_assignment(text) == pair


@pytest.mark.parametrize("text", ["memtable_flush_writers", "=6", "x=[1,"])
def test_parse_assignment_rejects(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_assignment(text)


JAVA = """
package org.apache.cassandra.config;
public class Config {
    public enum DiskFailurePolicy { best_effort, stop, ignore }
    public static final String CONSTANT = "x";
    public int memtable_flush_writers = 2;
    public volatile Integer concurrent_compactors;
    public Float memtable_cleanup_threshold;
    public boolean auto_snapshot = true;
    public String cluster_name;
    public DiskFailurePolicy disk_failure_policy = DiskFailurePolicy.ignore;
    public java.util.Map<String, String> options;
    private int hidden;
    public static int static_field;
}
"""


@pytest.fixture(scope="module")
def fake_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A jar holding a real class file compiled by this machine's javac."""
    root = tmp_path_factory.mktemp("javac")
    source = root / "org/apache/cassandra/config/Config.java"
    source.parent.mkdir(parents=True)
    source.write_text(JAVA)
    subprocess.run(["javac", "-d", str(root / "out"), str(source)], check=True)
    jar = root / "fake.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        for path in (root / "out").rglob("*.class"):
            archive.write(path, path.relative_to(root / "out").as_posix())
    return jar


def test_catalogue_from_a_compiled_class(fake_jar: Path) -> None:
    catalogue = catalogue_from_jar(fake_jar, "9.9.9")
    kinds = {name: s.kind for name, s in catalogue.settings.items()}
    assert kinds == {
        "memtable_flush_writers": SettingKind.INT,
        "concurrent_compactors": SettingKind.INT,
        "memtable_cleanup_threshold": SettingKind.FLOAT,
        "auto_snapshot": SettingKind.BOOL,
        "cluster_name": SettingKind.STRING,
        "disk_failure_policy": SettingKind.ENUM,
        "options": SettingKind.STRUCTURE,
    }
    assert catalogue.settings["disk_failure_policy"].choices == ("best_effort", "stop", "ignore")


def test_parse_class_rejects_non_class_bytes() -> None:
    with pytest.raises(ValueError, match="magic"):
        parse_class(b"PK\x03\x04 not a class")


def test_damaged_jar_gets_a_fix(tmp_path: Path) -> None:
    jar = tmp_path / "broken.jar"
    jar.write_bytes(b"nonsense")
    with pytest.raises(ConfigError, match="delete the cache directory"):
        catalogue_from_jar(jar, "5.0.9")
