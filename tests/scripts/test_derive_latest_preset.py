"""scripts/derive_latest_preset.py on a git repository the test makes: the preset is read at
the release tag (not the work tree's files), named by its commit, written sorted by version
beside the entries already there, and a tag whose build.xml is another version is refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from casslab.cluster.presets import DERIVED_HEADER, derived_entries
from script_files import script

BUILD = '<project><property name="base.version" value="{version}"/></project>\n'


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def _release(repo: Path, version: str, stock: str, latest: str) -> str:
    (repo / "conf").mkdir(exist_ok=True)
    (repo / "build.xml").write_text(BUILD.format(version=version))
    (repo / "conf" / "cassandra.yaml").write_text(stock)
    (repo / "conf" / "cassandra_latest.yaml").write_text(latest)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"release {version}")
    _git(repo, "tag", f"cassandra-{version}")
    return _git(repo, "rev-parse", "HEAD")


def test_the_preset_is_derived_at_the_tag(tmp_path: Path) -> None:
    derive = script("derive_latest_preset")
    repo = tmp_path / "cassandra"
    repo.mkdir()
    _git(repo, "init", "-q")
    first = _release(repo, "5.0.9", "a: 1\nb: 2\n", "a: 1\nb: 3\nc: 4\n")
    _release(repo, "5.0.10", "a: 1\n", "a: 5\n")
    (repo / "conf" / "cassandra_latest.yaml").write_text("a: 99\n")  # not at any tag
    out = tmp_path / "latest_presets.yaml"
    out.write_text(DERIVED_HEADER + "versions:\n  5.0.10: {source: old, settings: {}, unset: []}\n")
    assert derive.main(["--git-dir", str(repo), "--version", "5.0.9", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith(DERIVED_HEADER)
    entries = derived_entries(text)
    assert list(entries) == ["5.0.9", "5.0.10"]
    assert entries["5.0.9"] == {
        "source": f"Cassandra 5.0.9's source, tag cassandra-5.0.9 (commit {first})",
        "settings": {"b": 3, "c": 4},
        "unset": [],
    }
    assert derive.main(["--git-dir", str(repo), "--version", "5.0.10", "--out", str(out)]) == 0
    assert derived_entries(out.read_text())["5.0.10"]["settings"] == {"a": 5}


def test_a_wrong_tag_or_version_is_refused(tmp_path: Path) -> None:
    derive = script("derive_latest_preset")
    repo = tmp_path / "cassandra"
    repo.mkdir()
    _git(repo, "init", "-q")
    _release(repo, "5.0.2", "a: 1\n", "a: 2\n")
    _git(repo, "tag", "cassandra-5.0.3")  # the same commit: its build.xml says 5.0.2
    out = tmp_path / "latest_presets.yaml"
    out.write_text("versions: {}\n")
    with pytest.raises(SystemExit, match=r"build\.xml's base\.version is not 5\.0\.3"):
        derive.main(["--git-dir", str(repo), "--version", "5.0.3", "--out", str(out)])
    with pytest.raises(SystemExit, match=r"cassandra-5\.0\.4"):
        derive.main(["--git-dir", str(repo), "--version", "5.0.4", "--out", str(out)])
    with pytest.raises(SystemExit, match=r"Cassandra 4\.1\.5 has no cassandra_latest\.yaml"):
        derive.main(["--git-dir", str(repo), "--version", "4.1.5", "--out", str(out)])
    assert out.read_text() == "versions: {}\n"
