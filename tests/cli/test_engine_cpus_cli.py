"""``--engine-cpus`` on `casslab stress`, `casslab ycsb` and `casslab run`: the engine runs
pinned in its own cgroup (the fake engine of tests/fakes.py notes where it ran), the
cgroup is gone afterwards, and a value the host or the user cannot have is an error before
anything runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from casslab.cli.main import app
from casslab.errors import ConfigError
from casslab.host import engine_cgroup as engine_cgroup_module
from casslab.host.cgroups import read_hierarchy
from casslab.host.engine_cgroup import host_cpus
from cli_entry import casslab, flat
from fakes import engine_runs, install_fake_engine

EXPERIMENT = Path(__file__).parents[1] / "experiment" / "data" / "two-cells.yaml"
NODE = ["-node", "127.0.0.1"]
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="cgroups need root")


def _gone(cgroup: str) -> bool:
    return not any(d.exists() for d in read_hierarchy().directories(cgroup.lstrip("/")))


@root_only
@pytest.mark.parametrize(
    "command",
    [
        ["stress", "write", "n=10", *NODE],
        ["ycsb", "load", "-P", "workloada", "-p", "recordcount=10", "-p", "hosts=127.0.0.1"],
        ["ycsb", "run", "-P", "workloada", "-p", "operationcount=10", "-p", "hosts=127.0.0.1"],
    ],
)
def test_the_engine_runs_pinned_in_its_own_cgroup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    log = install_fake_engine(tmp_path, monkeypatch)
    cpu = str(max(host_cpus()))
    result = casslab(tmp_path / "home", *command, "--engine-cpus", cpu)
    assert result.returncode == 0, result.stderr
    [run] = engine_runs(log)
    assert run["cpus"] == cpu
    assert run["cpuset"].startswith("/casslab/engine-")
    assert _gone(run["cpuset"])  # removed when the command ended


HANGING_ENGINE = """#!{python}
import sys, time
if "--check" in sys.argv:
    sys.exit(0)
import os
with open("{seen}.tmp", "w") as out:
    out.write(str(os.getpid()) + "\\n" + open("/proc/self/cgroup").read())
os.rename("{seen}.tmp", "{seen}")
time.sleep(120)
"""


@root_only
def test_an_interrupted_stress_removes_the_cgroup_and_its_engine(tmp_path: Path) -> None:
    seen = tmp_path / "engine-cgroup"
    binary = tmp_path / "hanging-engine"
    binary.write_text(HANGING_ENGINE.format(python=sys.executable, seen=seen))
    binary.chmod(0o755)
    env = {**os.environ, "CASSLAB_ENGINE": str(binary), "CASSLAB_HOME": str(tmp_path / "h")}
    stress = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "casslab",
            "stress",
            "write",
            "duration=5m",
            *NODE,
            "--engine-cpus",
            "0",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not seen.exists() and stress.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert seen.exists(), "the engine did not start within 60 s"
        pid, *lines = seen.read_text().splitlines()
        cgroup = next(
            line.split(":", 2)[2] for line in lines if "cpuset" in line.split(":")[1].split(",")
        )
        assert cgroup.startswith(f"/casslab/engine-{stress.pid}-")
        stress.send_signal(signal.SIGINT)
        _, stderr = stress.communicate(timeout=60)
    finally:
        if stress.poll() is None:
            stress.kill()
            stress.wait()
    assert stress.returncode == 130, stderr
    assert _gone(cgroup)
    assert not psutil.pid_exists(int(pid))  # the engine went with it


def test_without_the_option_the_engine_is_not_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install_fake_engine(tmp_path, monkeypatch)
    result = casslab(tmp_path / "home", "stress", "write", "n=10", *NODE)
    assert result.returncode == 0, result.stderr
    [run] = engine_runs(log)
    assert not run["cpuset"].startswith("/casslab/")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("4096", "--engine-cpus '4096': CPU(s) 4096 do not exist here; this host has CPUs"),
        ("cpu1", "--engine-cpus 'cpu1': expected CPU numbers like 0-1 or 1,3"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [
        ["stress", "write", "n=10", *NODE],
        ["ycsb", "load", "-P", "workloada", "-p", "hosts=127.0.0.1"],
        ["run", str(EXPERIMENT)],
    ],
)
def test_a_bad_value_is_an_error_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], value: str, message: str
) -> None:
    log = install_fake_engine(tmp_path, monkeypatch)
    results = tmp_path / "results"
    extra = ["--results", str(results)] if command[0] == "run" else []
    result = casslab(tmp_path / "home", *command, *extra, "--engine-cpus", value)
    assert result.returncode == 1
    assert f"Error: {message}" in flat(result.stderr)
    assert "Traceback" not in result.stderr
    assert engine_runs(log) == []  # not even the engine's spec check ran
    assert not results.exists()  # `casslab run` made no run directory


@pytest.mark.parametrize(
    "command", [["stress", "write", "n=10", *NODE, "--dry-run"], ["run", str(EXPERIMENT)]]
)
def test_without_root_the_error_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.setattr(engine_cgroup_module.os, "geteuid", lambda: 1000)
    monkeypatch.chdir(tmp_path)  # `casslab run` would put its results here
    result = CliRunner().invoke(app, [*command, "--engine-cpus", "0"])
    assert isinstance(result.exception, ConfigError)
    assert "--engine-cpus 0 needs root" in str(result.exception)
    assert not (tmp_path / "results").exists()
