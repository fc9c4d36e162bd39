"""Signals during `up`, `stress`, `run` and `metrics record` leave nothing behind (real
nodes, real engine, the real CLI entry point).

SIGINT and SIGHUP go to casslab's process group (a terminal's Ctrl-C, a closed terminal),
SIGTERM and SIGKILL to its PID only (`kill`, `timeout`). For the first three casslab must
run every clean-up: exit 128 + the signal, say "Interrupted", and leave no Cassandra JVM,
load engine, JMX helper or temporary directory (TMPDIR of the child is a test directory).
SIGKILL runs no clean-up: the engine must stop by itself within 2 s, and the nodes of `up`
and `run` are found and stopped by the next `casslab down`.

`stress` and `metrics record` use the session's shared node; `up` and `run` start their
own node for each signal, as small as it goes (512M heap, a one-trial experiment without
JVM warm-up). Addresses 127.0.161.1-127.0.168.1, JMX ports 8210-8280.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from casslab.cluster import LocalCluster
from casslab.load.engine import ENGINE_NAME
from cli_entry import NEEDS_ENGINE
from shared_clusters import emptied, shared_spec

pytestmark = [
    pytest.mark.integration,
    *NEEDS_ENGINE,
]

SHARED_NODE = shared_spec("node").base_address
SHARED_CLUSTER = shared_spec("node").name
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL]
NAMES = [s.name for s in SIGNALS]
ORPHAN_LIMIT_S = 2.0  # an engine whose casslab was killed stops loading within this


@pytest.fixture(scope="module")
def shared_home(shared_node: LocalCluster, casslab_home: Path) -> Iterator[Path]:
    """CASSLAB_HOME holding the session's shared node, running and emptied."""
    for _ in emptied(shared_node):
        yield casslab_home


class Child:
    """One `python -m casslab ...` in its own process group, output in files."""

    def __init__(self, args: list[str], home: Path, tmp: Path) -> None:
        self.tmpdir = tmp / "tmpdir"
        self.tmpdir.mkdir(exist_ok=True)
        self.stdout_path = tmp / "stdout.txt"
        self.stderr_path = tmp / "stderr.txt"
        self.env = {
            **os.environ,
            "CASSLAB_HOME": str(home),
            "TMPDIR": str(self.tmpdir),
            "COLUMNS": "200",
        }
        # casslab started from a terminal: SIGHUP at its default (under `nohup make test` it
        # comes ignored, and casslab keeps an ignored SIGHUP ignored, as nohup asks)
        hup = signal.signal(signal.SIGHUP, signal.SIG_DFL)
        try:
            self._start(args)
        finally:
            signal.signal(signal.SIGHUP, hup)
        self.process = psutil.Process(self.proc.pid)
        self.seen: dict[int, psutil.Process] = {}

    def _start(self, args: list[str]) -> None:
        with self.stdout_path.open("w") as out, self.stderr_path.open("w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "casslab", *args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=self.env,
                start_new_session=True,
            )

    @property
    def stdout(self) -> str:
        return self.stdout_path.read_text()

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def descendants(self) -> list[psutil.Process]:
        """Every process casslab started so far (remembered: orphans leave the tree)."""
        try:
            for child in self.process.children(recursive=True):
                self.seen.setdefault(child.pid, child)
        except psutil.NoSuchProcess:
            pass
        return list(self.seen.values())

    def wait_for(self, what: str, test: Callable[[], bool], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not test():
            assert self.proc.poll() is None, (
                f"casslab exited ({self.proc.returncode}) before {what}:\n"
                f"{self.stdout}\n{self.stderr}"
            )
            assert time.monotonic() < deadline, f"no {what} after {timeout_s:g} s:\n{self.stderr}"
            time.sleep(0.1)

    def send(self, signum: signal.Signals) -> float:
        """Deliver ``signum`` as a terminal (INT, HUP: the group) or `kill` (TERM, KILL) would;
        returns when casslab has exited, the time of sending."""
        self.descendants()
        sent = time.monotonic()
        if signum in (signal.SIGINT, signal.SIGHUP):
            os.killpg(self.proc.pid, signum)
        else:
            self.proc.send_signal(signum)
        self.proc.wait(timeout=180)
        return sent

    def stop_leftovers(self) -> None:
        """Kill, by PID, whatever this test's casslab started and left running."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for process in self.descendants():
            if _running(process):
                process.kill()


def _running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _cmdline(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


def _is_engine(process: psutil.Process) -> bool:
    """A load engine at work (not a short `--check` of a spec)."""
    cmdline = _cmdline(process)
    return ENGINE_NAME in cmdline and "--check" not in cmdline and _running(process)


def _is_cassandra(process: psutil.Process) -> bool:
    return "CassandraDaemon" in _cmdline(process)


def _is_java(process: psutil.Process) -> bool:
    try:
        return process.name() == "java"
    except psutil.Error:
        return False


def _running_after(processes: list[psutil.Process], since: float, limit_s: float) -> list[str]:
    """Those of ``processes`` still running ``limit_s`` after ``since`` (waits until then)."""
    deadline = since + limit_s
    while any(_running(p) for p in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [f"{p.pid} {_cmdline(p)[:120]}" for p in processes if _running(p)]


def _check_cleaned_up(child: Child, signum: signal.Signals) -> None:
    """After SIGINT, SIGTERM or SIGHUP: status, message, no process, no temporary file."""
    stderr = child.stderr
    assert child.proc.returncode == 128 + signum, f"{child.proc.returncode}\n{stderr}"
    assert f"Interrupted by {signum.name}" in stderr, stderr
    assert "Traceback" not in stderr, stderr
    assert _running_after(child.descendants(), time.monotonic(), 2.0) == []
    assert sorted(child.tmpdir.iterdir()) == []


def _casslab(child: Child, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "casslab", *args],
        capture_output=True,
        text=True,
        env=child.env,
        timeout=180,
        check=False,
    )


# ---------------------------------------------------------------- stress, metrics record


@pytest.mark.parametrize("signum", SIGNALS, ids=NAMES)
def test_signal_during_stress(shared_home: Path, tmp_path: Path, signum: signal.Signals) -> None:
    child = Child(
        [
            "stress",
            "write",
            "n=100000000",
            "-node",
            SHARED_NODE,
            "-rate",
            "threads=2",
            "-schema",
            "keyspace=signals",
        ],
        shared_home,
        tmp_path,
    )
    try:
        child.wait_for("load", lambda: "total," in child.stdout, 60)
        engines = [p for p in child.descendants() if _is_engine(p)]
        assert len(engines) == 1, child.descendants()
        sent = child.send(signum)
        if signum is signal.SIGKILL:
            assert _running_after(engines, sent, ORPHAN_LIMIT_S) == [], "engine still loading"
        else:
            _check_cleaned_up(child, signum)
    finally:
        child.stop_leftovers()


@pytest.mark.parametrize("signum", SIGNALS, ids=NAMES)
def test_signal_during_metrics_record(
    shared_home: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    output = tmp_path / "metrics.parquet"
    child = Child(
        ["metrics", "record", "--name", SHARED_CLUSTER, "-d", "120s", "-o", str(output)],
        shared_home,
        tmp_path,
    )
    try:
        child.wait_for("JMX helper", lambda: any(_is_java(p) for p in child.descendants()), 60)
        time.sleep(1.0)  # a few samples in
        sent = child.send(signum)
        if signum is signal.SIGKILL:
            helpers = [p for p in child.descendants() if _is_java(p)]
            assert _running_after(helpers, sent, ORPHAN_LIMIT_S) == [], "JMX helper left"
        else:
            _check_cleaned_up(child, signum)
            assert output.is_file()  # what was sampled is written
        shared = LocalCluster.open(SHARED_CLUSTER, shared_home / "clusters")
        assert all(shared.node_alive(n) for n in shared.nodes)  # not casslab's to stop
    finally:
        child.stop_leftovers()


# ---------------------------------------------------------------- up, run


@pytest.mark.parametrize(("index", "signum"), list(enumerate(SIGNALS)), ids=NAMES)
def test_signal_during_up(tmp_path: Path, index: int, signum: signal.Signals) -> None:
    home = tmp_path / "home"
    child = Child(
        [
            "up",
            "--name",
            "sigup",
            "--heap",
            "512M",
            "--base-address",
            f"127.0.{161 + index}.1",
            "--jmx-port-base",
            str(8210 + 10 * index),
        ],
        home,
        tmp_path,
    )
    try:
        child.wait_for(
            "Cassandra JVM", lambda: any(_is_cassandra(p) for p in child.descendants()), 120
        )
        time.sleep(1.0)  # its PID is in the cluster state
        jvms = [p for p in child.descendants() if _is_cassandra(p)]
        child.send(signum)
        if signum is signal.SIGKILL:
            assert all(_running(p) for p in jvms)
            down = _casslab(child, "down", "--name", "sigup")
            assert down.returncode == 0, down.stdout + down.stderr
            assert _running_after(jvms, time.monotonic(), 2.0) == []
        else:
            _check_cleaned_up(child, signum)
    finally:
        child.stop_leftovers()


# duration=300s is never reached: each test signals casslab as soon as the trial runs; the
# node's JVM is light (tests/jit.py): it only needs to start
EXPERIMENT = """\
name: signals
cluster: {nodes: 1, heap: 512M,
  jvm_options: ["-XX:TieredStopAtLevel=1", "-Dcassandra.approximate_time_precision_ms=20"]}
schema: {replication: {class: SimpleStrategy, replication_factor: 1}}
workload: "write"
warmup: 0s
measure: "duration=300s cl=ONE -rate threads=2"
iterations: 1
"""


@pytest.mark.parametrize(("index", "signum"), list(enumerate(SIGNALS)), ids=NAMES)
def test_signal_during_run(tmp_path: Path, index: int, signum: signal.Signals) -> None:
    experiment = tmp_path / "signals.yaml"
    experiment.write_text(EXPERIMENT)
    results = tmp_path / "results"
    address, jmx = f"127.0.{165 + index}.1", str(8250 + 10 * index)
    child = Child(
        [
            "run",
            str(experiment),
            "--results",
            str(results),
            "--base-address",
            address,
            "--jmx-port-base",
            jmx,
            "--jvm-warmup",
            "0",
        ],
        tmp_path / "home",
        tmp_path,
    )
    try:
        child.wait_for("load", lambda: any(_is_engine(p) for p in child.descendants()), 240)
        time.sleep(1.0)
        processes = child.descendants()
        engines = [p for p in processes if _is_engine(p)]
        jvms = [p for p in processes if _is_cassandra(p)]
        assert engines, processes
        assert jvms, processes
        sent = child.send(signum)
        if signum is signal.SIGKILL:
            assert _running_after(engines, sent, ORPHAN_LIMIT_S) == [], "engine still loading"
            down = _casslab(child, "down", "--name", "run-signals")
            assert down.returncode == 0, down.stdout + down.stderr
            assert _running_after(jvms, time.monotonic(), 2.0) == []
        else:
            _check_cleaned_up(child, signum)
            run_dirs = list((results / "signals").iterdir())
            assert len(run_dirs) == 1, run_dirs
            resume = (
                f"resume with: casslab run {experiment} --resume-dir {run_dirs[0]} "
                f"--base-address {address} --jmx-port-base {jmx} --jvm-warmup 0"
            )
            assert resume in " ".join(child.stderr.split()), child.stderr
    finally:
        child.stop_leftovers()
