"""The replication, compaction and compression classes read from a jar, and names checked
against them: a jar compiled here by javac, and the real Cassandra jars."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from casslab.cluster.class_catalogue import (
    ClassCatalogue,
    ClassKind,
    class_catalogue_from_jar,
    class_problem,
    resolve_class,
)
from casslab.cluster.config import class_catalogue_for
from casslab.errors import ConfigError

SOURCES = {
    "org/apache/cassandra/locator/AbstractReplicationStrategy.java": (
        "package org.apache.cassandra.locator;\n"
        "public abstract class AbstractReplicationStrategy {}\n"
    ),
    "org/apache/cassandra/locator/SimpleStrategy.java": (
        "package org.apache.cassandra.locator;\n"
        "public class SimpleStrategy extends AbstractReplicationStrategy {\n"
        "    static class Inner extends AbstractReplicationStrategy {}\n}\n"
    ),
    "org/apache/cassandra/locator/LocalStrategy.java": (
        "package org.apache.cassandra.locator;\n"
        "public class LocalStrategy extends AbstractReplicationStrategy {}\n"
    ),
    "org/apache/cassandra/locator/Middle.java": (
        "package org.apache.cassandra.locator;\n"
        "public abstract class Middle extends AbstractReplicationStrategy {}\n"
    ),
    "org/apache/cassandra/locator/Deep.java": (
        "package org.apache.cassandra.locator;\npublic final class Deep extends Middle {}\n"
    ),
    "org/apache/cassandra/io/compress/ICompressor.java": (
        "package org.apache.cassandra.io.compress;\npublic interface ICompressor {}\n"
    ),
    "org/apache/cassandra/io/compress/Base.java": (
        "package org.apache.cassandra.io.compress;\n"
        "public abstract class Base implements java.io.Serializable, ICompressor {}\n"
    ),
    "org/apache/cassandra/io/compress/FastCompressor.java": (
        "package org.apache.cassandra.io.compress;\npublic class FastCompressor extends Base {}\n"
    ),
    "org/apache/cassandra/db/compaction/NotAStrategy.java": (
        "package org.apache.cassandra.db.compaction;\npublic class NotAStrategy {}\n"
    ),
}


@pytest.fixture(scope="module")
def compiled_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A jar of real class files compiled by this machine's javac."""
    root = tmp_path_factory.mktemp("javac")
    paths = []
    for name, text in SOURCES.items():
        path = root / "src" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(str(path))
    subprocess.run(["javac", "-d", str(root / "out"), *paths], check=True)
    jar = root / "fake.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        for path in (root / "out").rglob("*.class"):
            archive.write(path, path.relative_to(root / "out").as_posix())
    return jar


def test_concrete_subclasses_at_any_depth_and_through_interfaces(compiled_jar: Path) -> None:
    catalogue = class_catalogue_from_jar(compiled_jar, "9.9.9")
    assert catalogue.classes == {
        ClassKind.REPLICATION: (
            "org.apache.cassandra.locator.Deep",
            "org.apache.cassandra.locator.SimpleStrategy",
        ),
        ClassKind.COMPACTION: (),
        ClassKind.COMPRESSION: ("org.apache.cassandra.io.compress.FastCompressor",),
    }


def test_damaged_jar_gets_a_fix(tmp_path: Path) -> None:
    jar = tmp_path / "broken.jar"
    jar.write_bytes(b"nonsense")
    with pytest.raises(ConfigError, match="delete the cache directory"):
        class_catalogue_from_jar(jar, "5.0.9")


CATALOGUE = ClassCatalogue(
    cassandra_version="9.9.9",
    classes={
        ClassKind.REPLICATION: ("org.apache.cassandra.locator.SimpleStrategy",),
        ClassKind.COMPACTION: ("org.apache.cassandra.db.compaction.LeveledCompactionStrategy",),
        ClassKind.COMPRESSION: ("org.apache.cassandra.io.compress.LZ4Compressor",),
    },
)


@pytest.mark.parametrize(
    ("kind", "name", "full"),
    [
        (ClassKind.REPLICATION, "SimpleStrategy", "org.apache.cassandra.locator.SimpleStrategy"),
        (
            ClassKind.REPLICATION,
            "org.apache.cassandra.locator.SimpleStrategy",
            "org.apache.cassandra.locator.SimpleStrategy",
        ),
        (
            ClassKind.COMPACTION,
            " LeveledCompactionStrategy ",
            "org.apache.cassandra.db.compaction.LeveledCompactionStrategy",
        ),
        (ClassKind.COMPRESSION, "LZ4Compressor", "org.apache.cassandra.io.compress.LZ4Compressor"),
        (ClassKind.COMPRESSION, "SimpleStrategy", None),
        (ClassKind.REPLICATION, "org.example.SimpleStrategy", None),
        (ClassKind.REPLICATION, "locator.SimpleStrategy", None),
        (ClassKind.REPLICATION, "simplestrategy", None),
    ],
)
def test_resolve_short_and_full_names(kind: ClassKind, name: str, full: str | None) -> None:
    assert resolve_class(kind, name, CATALOGUE) == full


def test_unknown_names_the_value_the_version_and_the_known_names() -> None:
    problem = class_problem(ClassKind.REPLICATION, "BogusStrategy", CATALOGUE) or ""
    assert "'BogusStrategy'" in problem
    assert "Cassandra 9.9.9" in problem
    assert "known: SimpleStrategy" in problem
    local = class_problem(ClassKind.REPLICATION, "LocalStrategy", CATALOGUE) or ""
    assert "system keyspaces" in local


KNOWN = {
    "5.0.9": {
        ClassKind.REPLICATION: ["NetworkTopologyStrategy", "SimpleStrategy"],
        ClassKind.COMPACTION: [
            "LeveledCompactionStrategy",
            "SizeTieredCompactionStrategy",
            "TimeWindowCompactionStrategy",
            "UnifiedCompactionStrategy",
        ],
        ClassKind.COMPRESSION: [
            "DeflateCompressor",
            "LZ4Compressor",
            "NoopCompressor",
            "SnappyCompressor",
            "ZstdCompressor",
        ],
    },
    "4.0.11": {
        ClassKind.REPLICATION: ["NetworkTopologyStrategy", "SimpleStrategy"],
        ClassKind.COMPACTION: [
            "DateTieredCompactionStrategy",
            "LeveledCompactionStrategy",
            "SizeTieredCompactionStrategy",
            "TimeWindowCompactionStrategy",
        ],
        ClassKind.COMPRESSION: [
            "DeflateCompressor",
            "LZ4Compressor",
            "NoopCompressor",
            "SnappyCompressor",
            "ZstdCompressor",
        ],
    },
}


@pytest.mark.parametrize("version", sorted(KNOWN))
def test_the_real_jars_ship_the_known_classes(version: str) -> None:
    """The classes each version's jar (fetched from Maven Central if not cached) ships,
    as Cassandra's documentation lists them: UCS arrived in 5.0, DTCS left with it."""
    catalogue = class_catalogue_for(version)
    classes = catalogue.classes.items()
    short = {kind: [name.rsplit(".", 1)[-1] for name in names] for kind, names in classes}
    assert short == KNOWN[version]
