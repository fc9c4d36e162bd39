"""The memtable row overhead a node computed, kept per kind of node (pure parts, and the
cache and jar checks on files the tests write)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from casslab.cluster import row_overhead

_AT = "INFO  [main] 2026-11-28 11:19:49,527 SkipListMemtable.java:240 - "
LOG = (
    "INFO  [main] 2026-11-28 11:19:45,668 ColumnFamilyStore.java:502 - Initializing IndexInfo\n"
    f"{_AT}Estimated SkipListMemtable row overhead: 180\n"
    f"{_AT}Estimated SkipListMemtable row overhead: 204\n"
)


@pytest.mark.parametrize(
    ("text", "figure"),
    [
        (LOG, 204),  # the last start's
        (LOG.splitlines()[1], 180),
        ("INFO Estimated Memtable row overhead: 180", None),  # not SkipListMemtable's line
        ("", None),
    ],
)
def test_the_figure_is_read_from_the_last_start_in_the_log(text: str, figure: int | None) -> None:
    assert row_overhead.logged(text) == figure


def test_every_input_of_the_object_layout_makes_another_kind() -> None:
    base = row_overhead.kind_key("install", 512, None, ())
    assert base == row_overhead.kind_key("install", 512, "G1", ())
    others = {
        row_overhead.kind_key("other-install", 512, None, ()),
        row_overhead.kind_key("install", 40960, None, ()),  # no compressed references
        row_overhead.kind_key("install", 512, "ZGC", ()),
        row_overhead.kind_key("install", 512, None, ("-XX:-UseCompressedOops",)),
    }
    assert base not in others
    assert len(others) == 4


def _jar(lib: Path, name: str, properties_class: bytes | None) -> None:
    lib.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(lib / name, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        if properties_class is not None:
            jar.writestr(
                "org/apache/cassandra/config/CassandraRelevantProperties.class", properties_class
            )


def test_only_a_cassandra_that_reads_the_property_gets_it(tmp_path: Path) -> None:
    with_it = tmp_path / "with"
    _jar(with_it, "apache-cassandra-5.0.9.jar", b"\xca\xfe$cassandra.memtable.row_overhead_size")
    without = tmp_path / "without"
    _jar(without, "apache-cassandra-4.0.11.jar", b"\xca\xfe cassandra.memtable_row_overhead")
    no_class = tmp_path / "no-class"
    _jar(no_class, "cassandra-all-5.0.9.jar", None)
    assert row_overhead.supported(with_it)
    assert not row_overhead.supported(without)
    assert not row_overhead.supported(no_class)
    assert not row_overhead.supported(tmp_path / "empty")


def test_a_figure_is_kept_once_and_then_handed_to_nodes(tmp_path: Path) -> None:
    place = row_overhead.RowOverhead(file=tmp_path / "cache" / "kind.txt")
    assert row_overhead.jvm_flags(place) == []
    assert row_overhead.jvm_flags(None) == []
    log = tmp_path / "system.log"
    log.write_text("no estimate here\n")
    assert row_overhead.learn(place, log) is None
    assert not place.file.exists()
    log.write_text(LOG)
    assert row_overhead.learn(place, log) == 204
    assert row_overhead.jvm_flags(place) == ["-Dcassandra.memtable.row_overhead_size=204"]
    log.write_text(LOG.replace("204", "999"))
    assert row_overhead.learn(place, log) is None  # kept already: not replaced
    assert place.value() == 204
    assert list(place.file.parent.iterdir()) == [place.file]  # no partial file left


@pytest.mark.parametrize("text", ["", "abc", "0", "-3"])
def test_an_unreadable_figure_is_none(tmp_path: Path, text: str) -> None:
    place = row_overhead.RowOverhead(file=tmp_path / "kind.txt")
    place.file.write_text(text)
    assert place.value() is None


def test_off_by_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(row_overhead.ENV, "0")
    assert row_overhead.for_node(Path("/usr/bin/java"), tmp_path, 512, None, ()) is None


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    (tmp_path / "not-a-folder").write_text("")
    place = row_overhead.RowOverhead(file=tmp_path / "not-a-folder" / "kind.txt")
    log = tmp_path / "system.log"
    log.write_text(LOG)
    assert row_overhead.learn(place, log) is None
    assert row_overhead.jvm_flags(place) == []
