"""The wheel as a user installs it: built by ``scripts/build_wheel.py`` (what ``make wheel``
runs), installed with ``pipx`` into a fresh place outside the checkout, and used from a
directory with no checkout in it by the commands of the README's install block (the fenced
block after ``<!-- tested: wheel``), read from the README at each run so that the two cannot
drift: ``casslab doctor``, ``experiments``, ``up``, ``stress write``, ``down``, ``experiments
copy`` and ``run`` of the copied study. Nothing may come from the checkout: the test runs the
installed ``casslab`` with a PATH and a working directory that do not lead to it, and checks
that the engine it ran is the wheel's.

What the test adds to the README's lines, and only that: its own address and ports (``up``
and ``run``: other tests share this machine), no JVM warm-up, light JVMs (they
start, take a few thousand writes and stop: tests/jit.py), and the copied study cut to 2
trials of 6 s (the README's runs 9 trials of 90 s). pipx installs with pip's
``--no-compile``, as ``uv tool install`` (the README's other line) installs by default: the
modules a command imports are compiled to byte code at its first import instead of every
module of every dependency at install (the install took 28 s here with that, 10 s without).

Its own 1-node clusters (127.0.120.1, JMX 9780), one after the other: it runs the installed
casslab, a process tree of its own, not the suite's library."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from jit import LIGHT, UP_LIGHT

ROOT = Path(__file__).resolve().parents[2]
MARK = "<!-- tested: wheel"
PLACE = ["--base-address", "127.0.120.1", "--jmx-port-base", "9780"]
# the test's additions to a README command, by subcommand (nothing else is changed)
ADDED = {"up": [*PLACE, "--heap", "512M", *UP_LIGHT], "run": [*PLACE, "--jvm-warmup", "0"]}
# the clusters the README's lines make: `up`'s default name, and the run's
CLUSTERS = ("casslab", "run-quick-compaction")


def readme_block(text: str) -> list[list[str]]:
    """The words of each line of the fenced block after the README's mark (comments gone)."""
    after = text[text.index(MARK) :]
    found = re.search(r"^```\n(.*?)^```", after, flags=re.DOTALL | re.MULTILINE)
    assert found is not None, f"no fenced block after {MARK!r} in README.md"
    lines = [shlex.split(line, comments=True) for line in found.group(1).splitlines()]
    return [words for words in lines if words]


pytestmark = pytest.mark.integration


class Installed:
    """The pipx install: its ``casslab`` and the environment to run it in."""

    def __init__(self, bin_dir: Path, venv: Path, home: Path, work: Path) -> None:
        self.casslab = bin_dir / "casslab"
        self.venv = venv
        self.work = work
        self.env = {
            "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "HOME": os.environ.get("HOME", "/root"),
            "CASSLAB_HOME": str(home),
            "COLUMNS": "200",
            "LANG": "C.UTF-8",
        }

    def run(self, *words: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.casslab), *words],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    built = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_wheel.py"), "--out", str(dist)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = dist.glob("casslab-*.whl")
    pipx = Path(sys.executable).parent / "pipx"
    env = {
        **os.environ,
        "PIPX_HOME": str(base / "pipx"),
        "PIPX_BIN_DIR": str(base / "bin"),
        "PIPX_MAN_DIR": str(base / "man"),
    }
    env.pop("VIRTUAL_ENV", None)
    # the dependencies at the versions the suite runs with (and found in pip's cache)
    # and no byte code compiled at install (uv's default; the docstring says why)
    pins = f"--pip-args=--constraint {ROOT / 'requirements.lock'} --no-compile"
    done = subprocess.run(
        [str(pipx), "install", pins, str(wheel)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    work = base / "work"
    work.mkdir()
    tool = Installed(base / "bin", base / "pipx" / "venvs" / "casslab", base / "home", work)
    try:
        yield tool
    finally:
        for name in CLUSTERS:
            tool.run("down", "--name", name, timeout=120)
        shutil.rmtree(base / "pipx", ignore_errors=True)


def test_the_readme_block_installs_the_wheel_and_uses_it() -> None:
    """The block's first lines are what the fixture does (build, pipx install), and the
    rest are casslab commands that cover what a user needs first."""
    block = readme_block((ROOT / "README.md").read_text())
    assert block[:2] == [["make", "wheel"], ["pipx", "install", "dist/casslab-*.whl"]]
    assert all(words[0] == "casslab" for words in block[2:]), block
    said = [" ".join(words[1:3]) for words in block[2:]]
    for needed in ("doctor", "up --nodes", "stress write", "experiments copy", "run", "down"):
        assert any(line.startswith(needed) for line in said), (needed, said)


def _shorten(study: Path) -> None:
    """The copied study, 2 trials of 6 s on a node of its own (the test's time)."""
    data = yaml.safe_load(study.read_text())
    data["cluster"]["heap"] = "512M"
    data["cluster"]["jvm_options"] = list(LIGHT)
    data["factors"] = {"table.compaction": data["factors"]["table.compaction"][:2]}
    data.update(iterations=1, warmup="2s", preload="write n=2000 cl=ONE -rate threads=4")
    data["measure"] = "duration=6s cl=ONE -pop dist=UNIFORM(1..2000) -rate threads=4"
    data.pop("claims", None)
    data.pop("order", None)
    study.write_text(yaml.safe_dump(data, sort_keys=False))


def _check(installed: Installed, words: list[str], done: subprocess.CompletedProcess[str]) -> None:
    """What each command of the block must have done, beyond exiting 0."""
    if words[0] == "doctor":
        engine_line = next(line for line in done.stdout.splitlines() if "Engine" in line)
        assert "casslab.scripts/casslab-engine" in engine_line, engine_line
    elif words[0] == "experiments" and len(words) == 1:
        assert "quick-compaction" in done.stdout
    elif words[0] == "run":
        (run_dir,) = (installed.work / "results" / Path(words[1]).stem).iterdir()
        trials = run_dir / "trials.parquet"
        assert trials.is_file(), sorted(p.name for p in run_dir.iterdir())
        import pandas as pd

        assert len(pd.read_parquet(trials)) == 2
        assert "━" not in done.stdout  # piped: the trial lines, no progress bar
    assert str(ROOT) not in done.stdout


def test_the_readme_block_works_from_the_install(installed: Installed) -> None:
    block = readme_block((ROOT / "README.md").read_text())
    for words in (line[1:] for line in block[2:]):
        if words[0] == "run":
            _shorten(installed.work / words[1])
            words = [*words, "--results", str(installed.work / "results")]
        done = installed.run(*words, *ADDED.get(words[0], []))
        assert done.returncode == 0, (words, done.stdout[-3000:] + done.stderr[-3000:])
        _check(installed, words, done)
