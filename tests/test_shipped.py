"""The shipped experiment files: listed by name with their first sentence, copied with
the profiles they name; the real folder of this checkout is listed whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab import shipped
from casslab.errors import ConfigError


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "experiments"
    (folder / "profiles").mkdir(parents=True)
    (folder / "tune").mkdir()
    (folder / "study.yaml").write_text(
        "# A study of two\n# strategies: more words.\n#\n# Details.\nname: s\n"
        'workload: "user profile=profiles/p.yaml ops(insert=1)"\n'
    )
    (folder / "profiles" / "p.yaml").write_text("# A profile.\nkeyspace: k\n")
    (folder / "tune" / "t.yaml").write_text("# A tune study. It searches.\n")
    return folder


def test_listing_puts_the_studies_first_with_their_first_sentence(tmp_path: Path) -> None:
    listed = shipped.listing(_folder(tmp_path))
    assert [f.name for f in listed] == ["study", "profiles/p", "tune/t"]
    assert [f.about for f in listed] == ["A study of two strategies", "A profile", "A tune study"]


def test_copy_writes_the_file_and_its_profile_and_never_overwrites(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    to = tmp_path / "mine"
    written = shipped.copy(folder, "study", to)
    assert written == [to / "study.yaml", to / "profiles" / "p.yaml"]
    assert (to / "profiles" / "p.yaml").read_text() == "# A profile.\nkeyspace: k\n"
    with pytest.raises(ConfigError, match="already exist"):
        shipped.copy(folder, "study.yaml", to)


def test_an_unknown_name_lists_the_shipped_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        shipped.copy(_folder(tmp_path), "studdy", tmp_path / "x")
    assert "no shipped experiment 'studdy'" in str(raised.value)
    assert "profiles/p, study, tune/t" in str(raised.value)


def test_the_checkouts_studies_are_all_listed_with_a_sentence() -> None:
    listed = shipped.listing(shipped.shipped_dir("experiments"))
    names = {f.name for f in listed}
    assert {"quick-compaction", "tune/tune-quick", "capacity/seed003-case1"} <= names
    assert all(f.about for f in listed), [f.name for f in listed if not f.about]
