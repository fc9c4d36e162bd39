"""The load engine's cgroup (``--engine-cpus``): the value checked against the host's CPUs,
root and the controllers (pure and with a fake mountinfo), and a real cgroup that pins a
process, is removed at exit (also when the body raises), and is swept once its casslab is
gone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.errors import ConfigError
from casslab.host import engine_cgroup as module
from casslab.host.cgroup_limits import NodeLimits
from casslab.host.cgroups import Cgroups, join, read_hierarchy
from casslab.host.engine_cgroup import (
    CONTROLLERS,
    check_engine_cpus,
    engine_cgroup,
    host_cpus,
    owner_pid,
    parse_engine_cpus,
    sweep,
)


@pytest.mark.parametrize(
    ("text", "host", "expected"),
    [
        ("1", [0, 1], [1]),
        ("0-1", [0, 1], [0, 1]),
        ("1,3", [0, 1, 2, 3], [1, 3]),
        (" 2 - 3 ", [0, 1, 2, 3], [2, 3]),
    ],
)
def test_engine_cpus_that_exist(text: str, host: list[int], expected: list[int]) -> None:
    assert parse_engine_cpus(text, host) == expected


@pytest.mark.parametrize(
    ("text", "host", "message"),
    [
        (
            "2",
            [0, 1],
            "--engine-cpus '2': CPU(s) 2 do not exist here; this host has CPUs 0-1; "
            "choose among them, e.g. --engine-cpus 1",
        ),
        (
            "1-3",
            [0, 1],
            "--engine-cpus '1-3': CPU(s) 2, 3 do not exist here; this host has CPUs 0-1",
        ),
        ("0", [1, 3], "--engine-cpus '0': CPU(s) 0 do not exist here; this host has CPUs 1,3"),
        ("one", [0, 1], "--engine-cpus 'one': expected CPU numbers like 0-1 or 1,3"),
        ("1-0", [0, 1], "--engine-cpus '1-0': range 1-0 runs backwards"),
        ("", [0, 1], "--engine-cpus '': expected CPU numbers"),
    ],
)
def test_engine_cpus_refused_name_the_value(text: str, host: list[int], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_engine_cpus(text, host)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("name", "pid"),
    [("engine-4242-1", 4242), ("engine-7-12", 7), ("3fa9c1", None), ("engine-x-1", None)],
)
def test_the_owner_of_an_engine_cgroup_is_in_its_name(name: str, pid: int | None) -> None:
    assert owner_pid(name) == pid


def test_without_root_the_error_says_root_is_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module.os, "geteuid", lambda: 1000)
    with pytest.raises(ConfigError, match=r"--engine-cpus 0 needs root.*or leave --engine-cpus"):
        check_engine_cpus("0")


def test_a_bad_value_is_named_before_root_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module.os, "geteuid", lambda: 1000)
    with pytest.raises(ConfigError, match="do not exist here"):
        check_engine_cpus(str(max(host_cpus()) + 1))


def test_a_missing_controller_says_how_to_mount_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module.os, "geteuid", lambda: 0)
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "30 25 0:26 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
        "31 25 0:27 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n"
    )
    with pytest.raises(ConfigError) as error:
        check_engine_cpus("0", mountinfo)
    message = str(error.value)
    assert "--engine-cpus needs the cgroup controller(s) cpuset (cgroup v1)" in message
    assert "mount -t cgroup -o cpuset cgroup /sys/fs/cgroup/cpuset" in message


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="cgroups need root")


def _cgroup_lines(pid: int) -> dict[str, str]:
    """controller -> cgroup path of process ``pid`` (v2: the unified tree under "")."""
    found: dict[str, str] = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            found[controller] = path
    return found


def _allowed_cpus(pid: int) -> str:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no Cpus_allowed_list in /proc/{pid}/status")


def _engine_cgroups() -> set[Path]:
    """The engine cgroups of this test process, in every mount."""
    hierarchy = read_hierarchy()
    return {
        child
        for parent in hierarchy.directories("casslab")
        if parent.is_dir()
        for child in parent.glob(f"engine-{os.getpid()}-*")
    }


@pytest.fixture
def sleeper() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts, killed and reaped whatever happens."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def _sleep(preexec: object, started: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    assert callable(preexec)
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], preexec_fn=preexec
    )
    started.append(process)
    return process


@root_only
def test_a_process_runs_pinned_in_the_engine_cgroup_which_goes_at_exit(
    sleeper: list[subprocess.Popen[bytes]],
) -> None:
    cpu = max(host_cpus())
    hierarchy = read_hierarchy()
    with engine_cgroup(str(cpu)) as preexec:
        process = _sleep(preexec, sleeper)
        groups = _cgroup_lines(process.pid)
        wanted = CONTROLLERS[hierarchy.version] if hierarchy.version == 1 else ("",)
        paths = {groups[c] for c in wanted}
        assert len(paths) == 1
        path = paths.pop()
        assert re.fullmatch(rf"/casslab/engine-{os.getpid()}-\d+", path)
        assert _allowed_cpus(process.pid) == str(cpu)
        assert _engine_cgroups()  # made in every controller's tree
        if hierarchy.version == 1:
            assert "memory" not in groups or not groups["memory"].startswith("/casslab")
    # the process left inside was ours: killed by PID; the cgroup is gone
    assert process.wait(timeout=10) == -9
    assert _engine_cgroups() == set()
    for directory in hierarchy.directories(path.lstrip("/")):
        assert not directory.exists()


def _start_pinned_then_fail(
    started: list[subprocess.Popen[bytes]], failure: type[BaseException]
) -> None:
    with engine_cgroup("0") as preexec:
        process = _sleep(preexec, started)
        assert _allowed_cpus(process.pid) == "0"
        raise failure("body failed")


@root_only
@pytest.mark.parametrize("failure", [RuntimeError, KeyboardInterrupt])  # an error, Ctrl-C
def test_the_cgroup_goes_when_the_body_raises(
    sleeper: list[subprocess.Popen[bytes]], failure: type[BaseException]
) -> None:
    with pytest.raises(failure, match="body failed"):
        _start_pinned_then_fail(sleeper, failure)
    assert sleeper[0].wait(timeout=10) == -9
    assert _engine_cgroups() == set()


@root_only
def test_two_at_once_get_their_own_cgroups(sleeper: list[subprocess.Popen[bytes]]) -> None:
    with engine_cgroup("0") as first, engine_cgroup("0-1" if len(host_cpus()) > 1 else "0") as two:
        a, b = _sleep(first, sleeper), _sleep(two, sleeper)
        assert _cgroup_lines(a.pid)["cpu"] != _cgroup_lines(b.pid)["cpu"]
        assert len({path.name for path in _engine_cgroups()}) == 2
    assert _engine_cgroups() == set()


@root_only
def test_a_dead_casslabs_engine_cgroup_is_swept_at_the_next_entry(
    sleeper: list[subprocess.Popen[bytes]],
) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=30)  # its PID stands for a casslab that was SIGKILLed
    hierarchy = read_hierarchy()
    relative = f"casslab/engine-{gone.pid}-1"
    stale = Cgroups(hierarchy, relative, CONTROLLERS[hierarchy.version])
    try:
        stale.create_group(relative, NodeLimits(cpuset="0"))
        left = _sleep(join(stale.procs_files_of(relative)), sleeper)  # its engine, left over
        with engine_cgroup("0"):
            assert left.wait(timeout=10) == -9
            for directory in hierarchy.directories(relative):
                assert not directory.exists()
            assert sweep(hierarchy) == []  # a running casslab's engine cgroup is kept
            assert _engine_cgroups()
    finally:
        stale.remove()
