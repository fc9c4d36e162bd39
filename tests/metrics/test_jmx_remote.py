"""What the JMX helper for nodes on other hosts puts there: every compiled class of the
helper, under a folder named by one digest of their names and bytes (a changed helper
goes to a new folder; the same helper is found where it is)."""

from __future__ import annotations

from pathlib import Path

from casslab.metrics.jmx import PROBE_CLASS, compiled_probe, local_java
from casslab.metrics.jmx_remote import probe_digest, probe_files


def _classes(folder: Path, body: bytes) -> Path:
    (folder / "casslab").mkdir(parents=True)
    (folder / "Main.class").write_bytes(body)
    (folder / "casslab" / "Inner$1.class").write_bytes(b"inner")
    (folder / "notes.txt").write_text("not a class")
    return folder


def test_every_class_is_named_by_its_path_under_the_folder(tmp_path: Path) -> None:
    files = probe_files(_classes(tmp_path / "a", b"one"))
    assert [name for _, name in files] == ["Main.class", "casslab/Inner$1.class"]


def test_the_digest_follows_the_bytes_and_names(tmp_path: Path) -> None:
    one = probe_digest(probe_files(_classes(tmp_path / "a", b"one")))
    same = probe_digest(probe_files(_classes(tmp_path / "b", b"one")))
    other = probe_digest(probe_files(_classes(tmp_path / "c", b"two")))
    assert one == same
    assert one != other
    assert len(one) == 16


def test_the_real_helper_has_its_main_class() -> None:
    names = [name for _, name in probe_files(compiled_probe(local_java()))]
    assert f"{PROBE_CLASS}.class" in names
