"""requirements.lock pins every Python dependency at the version CI tested, and the
Makefile's venv target installs from it (again whenever it changes)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in LOCK.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, version = line.partition("==")
        assert sep, f"requirements.lock: {line!r} is not pinned with =="
        pins[_normalized(name)] = version.strip()
    return pins


def test_every_dependency_of_casslab_and_its_tests_is_pinned() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    names = {_normalized(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0]) for spec in wanted}
    assert names - set(_pins()) == set(), "missing from requirements.lock: run `make lock`"


def test_the_virtualenv_runs_the_pinned_versions() -> None:
    installed = {
        _normalized(dist.metadata["Name"]): dist.version for dist in metadata.distributions()
    }
    differing = {
        name: (version, installed.get(name))
        for name, version in _pins().items()
        if installed.get(name) != version
    }
    assert differing == {}, "(locked, installed); `make venv` installs the lock"


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_the_venv_target_installs_the_lock_again_when_it_changes() -> None:
    plan = subprocess.run(
        ["make", "-n", "-W", "requirements.lock", ".venv/bin/.installed"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "pip install --quiet -r requirements.lock" in plan
    assert "pip install --quiet --no-deps -e ." in plan
