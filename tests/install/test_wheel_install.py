"""The wheel as a user installs it: built by ``scripts/build_wheel.py``, installed with
``pipx`` into a fresh place outside the checkout, and used from a directory with no
checkout in it: ``casslab doctor``, ``casslab up``, ``casslab stress write``, a 2-trial
``casslab run`` of a shipped study copied out with ``casslab experiments copy``, ``casslab
down``. Nothing may come from the checkout: the test runs the installed ``casslab`` with
a PATH and a working directory that do not lead to it, and checks that the engine it ran is
the wheel's.

Its own 1-node cluster (127.0.120.1, JMX 9780): it runs the installed casslab, a process
tree of its own, not the suite's library."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
NAME = "wheel1"
PLACE = ["--base-address", "127.0.120.1", "--jmx-port-base", "9780", "--heap", "512M"]

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
    pins = f"--pip-args=--constraint {ROOT / 'requirements.lock'}"
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
        tool.run("down", "--name", NAME, timeout=120)
        shutil.rmtree(base / "pipx", ignore_errors=True)


def test_the_wheel_carries_the_engine_and_the_studies_and_nothing_leads_to_the_checkout(
    installed: Installed,
) -> None:
    said = installed.run("doctor")
    assert said.returncode == 0, said.stdout + said.stderr
    engine_line = next(line for line in said.stdout.splitlines() if "Engine" in line)
    assert "casslab.scripts/casslab-engine" in engine_line, engine_line
    assert str(ROOT) not in said.stdout
    listed = installed.run("experiments")
    assert listed.returncode == 0, listed.stderr
    assert "quick-compaction" in listed.stdout
    assert str(ROOT) not in listed.stdout


def test_up_stress_run_and_down_from_the_install(installed: Installed) -> None:
    up = installed.run("up", "--nodes", "1", "--name", NAME, *PLACE)
    assert up.returncode == 0, up.stdout + up.stderr
    wrote = installed.run("stress", "write", "n=10000", "-node", "127.0.120.1")
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    copied = installed.run("experiments", "copy", "quick-compaction")
    assert copied.returncode == 0, copied.stdout + copied.stderr
    study = installed.work / "quick-compaction.yaml"
    data = yaml.safe_load(study.read_text())
    data["cluster"] = {"use": NAME}  # the cluster just made, two short trials on it
    data["factors"] = {"table.compaction": data["factors"]["table.compaction"][:2]}
    data.update(iterations=1, warmup="2s", preload="write n=2000 cl=ONE -rate threads=4")
    data["reset"] = "truncate"  # a cluster casslab did not create for this run
    data["measure"] = "duration=6s cl=ONE -pop dist=UNIFORM(1..2000) -rate threads=4"
    data.pop("claims", None)
    data.pop("order", None)
    study.write_text(yaml.safe_dump(data, sort_keys=False))
    ran = installed.run("run", str(study), "--results", str(installed.work / "results"))
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    (run_dir,) = (installed.work / "results" / "quick-compaction").iterdir()
    trials = run_dir / "trials.parquet"
    assert trials.is_file(), sorted(p.name for p in run_dir.iterdir())
    import pandas as pd

    assert len(pd.read_parquet(trials)) == 2
    down = installed.run("down", "--name", NAME)
    assert down.returncode == 0, down.stdout + down.stderr
