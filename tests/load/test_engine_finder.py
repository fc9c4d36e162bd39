"""Where the engine is looked for, in order, and the error that names each place."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from casslab.errors import EngineError
from casslab.load import engine_finder


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_an_installed_engine_in_the_scripts_directory_comes_before_the_checkout(
    tmp_path: Path,
) -> None:
    installed = _executable(tmp_path / "venv" / "bin" / "casslab-engine")
    _executable(tmp_path / "checkout" / "target" / "release" / "casslab-engine")
    found = engine_finder.find({}, [tmp_path / "venv" / "bin"], tmp_path / "checkout")
    assert found == installed


def test_a_checkout_build_is_found_when_nothing_is_installed(tmp_path: Path) -> None:
    built = _executable(tmp_path / "checkout" / "target" / "release" / "casslab-engine")
    assert engine_finder.find({}, [tmp_path / "bin"], tmp_path / "checkout") == built


def test_the_variable_wins_and_a_wrong_one_is_not_silently_replaced(tmp_path: Path) -> None:
    chosen = _executable(tmp_path / "mine" / "engine")
    _executable(tmp_path / "bin" / "casslab-engine")
    env = {engine_finder.ENGINE_ENV: str(chosen)}
    assert engine_finder.find(env, [tmp_path / "bin"], tmp_path) == chosen
    wrong = {engine_finder.ENGINE_ENV: str(tmp_path / "nope")}
    with pytest.raises(EngineError) as raised:
        engine_finder.find(wrong, [tmp_path / "bin"], tmp_path)
    said = str(raised.value)
    assert f"$CASSLAB_ENGINE: {tmp_path / 'nope'}" in said
    assert "set CASSLAB_ENGINE to an executable engine, or unset it" in said


def test_nothing_found_names_every_place_and_the_fixes(tmp_path: Path) -> None:
    not_executable = tmp_path / "bin" / "casslab-engine"
    not_executable.parent.mkdir()
    not_executable.write_text("")
    with pytest.raises(EngineError) as raised:
        engine_finder.find({}, [tmp_path / "bin"], tmp_path / "checkout")
    said = str(raised.value)
    assert f"the environment's scripts directory: {not_executable}" in said
    built = tmp_path / "checkout" / "target" / "release" / "casslab-engine"
    assert f"the checkout's release build: {built}" in said
    assert "reinstall casslab from its wheel" in said
    assert "make engine" in said
