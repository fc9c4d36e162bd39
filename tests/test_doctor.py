"""``casslab doctor``'s checks: each missing piece named with the one command that fixes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab import doctor
from casslab.load import engine_finder


def test_a_missing_tool_is_a_warning_with_the_packages_to_install() -> None:
    wan = next(tool for tool in doctor.TOOLS if tool.name == "WAN links")
    check = doctor.check_tool(wan, lambda command: None if command == "dpipe" else "/x")
    assert check.verdict is doctor.Verdict.WARN
    assert check.detail == "dpipe not found: needed for " + wan.needed_for
    assert check.fix == "apt-get update && apt-get install -y vde2"
    present = doctor.check_tool(wan, lambda command: f"/usr/bin/{command}")
    assert present.verdict is doctor.Verdict.OK


def test_every_tool_names_its_packages_and_what_needs_it() -> None:
    for tool in doctor.TOOLS:
        assert tool.commands, tool
        assert tool.packages, tool
        assert tool.needed_for, tool


def test_an_engine_not_found_fails_and_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(engine_finder.ENGINE_ENV, str(tmp_path / "none"))
    check = doctor.check_engine()
    assert check.verdict is doctor.Verdict.FAIL
    assert str(tmp_path / "none") in check.detail
    assert check.fix == "set CASSLAB_ENGINE to an executable engine, or unset it"
