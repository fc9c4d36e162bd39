"""The CLI's last line of defence: an unexpected exception becomes one line naming a crash
report that holds its stack, with every secret masked in both."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from casslab.cli import crash


def _raised() -> RecursionError:
    try:
        raise RecursionError("maximum recursion depth exceeded while parsing password=Hunter2")
    except RecursionError as error:
        return error


def test_the_report_holds_the_stack_and_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASSLAB_HOME", str(tmp_path))
    error = _raised()

    report = crash.write_report(error, ["casslab", "stress", "password=Hunter2"], {"Hunter2"})
    line = crash.message(error, report, {"Hunter2"})

    assert report.parent == tmp_path / "crashes"
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    text = report.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text
    assert "_raised" in text
    assert "Hunter2" not in text
    assert line.startswith("RecursionError: maximum recursion depth exceeded")
    assert f"(internal error; please report with this file: {report})" in line
    assert "Hunter2" not in line


def test_the_report_falls_back_to_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("CASSLAB_HOME", str(blocked))  # a file: no folder can be made in it
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)

    report = crash.write_report(_raised(), ["casslab"], set())

    assert report.parent == tmp_path
    assert "RecursionError" in report.read_text(encoding="utf-8")
