"""A password never lands in a file, a process's arguments or the terminal, and the login
still works: ``casslab stress`` (real CLI, real engine) against one node that requires a
login (PasswordAuthenticator). Address block 127.0.150.x (JMX 8100+)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from casslab.cluster import LocalCluster, cluster_spec
from casslab.load.credentials import MASK
from jit import LIGHT

pytestmark = [pytest.mark.integration, pytest.mark.engine]

SECRET = "S3cretPa55-casslab"
NODE = "127.0.150.1"
ENGINE_NAME = "casslab-engine"


def _wait_for_login(address: str, user: str, password: str, deadline_s: float = 90) -> None:
    """The default superuser appears a few seconds after the node starts."""
    from cassandra.auth import PlainTextAuthProvider
    from cassandra.cluster import Cluster

    deadline = time.monotonic() + deadline_s
    while True:
        driver = Cluster([address], auth_provider=PlainTextAuthProvider(user, password))
        try:
            driver.connect()
            return
        except Exception:  # noqa: BLE001 - the driver raises several types until it is ready
            assert time.monotonic() < deadline, f"no login as {user} within {deadline_s:.0f} s"
            time.sleep(1)
        finally:
            driver.shutdown()


def _create_role(address: str) -> None:
    from cassandra.auth import PlainTextAuthProvider
    from cassandra.cluster import Cluster

    driver = Cluster([address], auth_provider=PlainTextAuthProvider("cassandra", "cassandra"))
    try:
        session = driver.connect()
        session.execute(
            f"CREATE ROLE IF NOT EXISTS alice WITH PASSWORD = '{SECRET}' "
            "AND LOGIN = true AND SUPERUSER = true"
        )
    finally:
        driver.shutdown()


class _ArgvWatch:
    """Polls the command lines of one run's processes (``root`` and what it starts) while
    the run goes on: which ones held the password, and whether the engine was seen at all
    (so the check means something). Other processes on the machine (another test's, on
    another worker) are not this run's business."""

    def __init__(self, root: int, allowed_pid: int | None = None) -> None:
        self.root = root
        self.allowed_pid = allowed_pid
        self.leaks: list[str] = []
        self.engine_seen = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> _ArgvWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _tree(self) -> list[psutil.Process]:
        try:
            root = psutil.Process(self.root)
            return [root, *root.children(recursive=True)]
        except psutil.Error:
            return []

    def _poll(self) -> None:
        while not self._stop.is_set():
            for process in self._tree():
                try:
                    pid, name, cmdline = process.pid, process.name(), process.cmdline()
                except psutil.Error:
                    continue  # ended meanwhile
                if name == ENGINE_NAME or any(c.endswith(ENGINE_NAME) for c in cmdline[:1]):
                    self.engine_seen = True
                if pid != self.allowed_pid and any(SECRET in c for c in cmdline):
                    self.leaks.append(f"{pid}: {' '.join(cmdline)[:200]}")
            time.sleep(0.05)


def _stress(
    home: Path, run_dir: Path, name: str, mode: str, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], _ArgvWatch]:
    args = [
        sys.executable,
        "-m",
        "casslab",
        "stress",
        "write",
        "duration=3s",
        "-mode",
        "native",
        "cql3",
        "user=alice",
        mode,
        "-node",
        NODE,
        "-rate",
        "threads=4",
        "-log",
        f"file={run_dir / f'{name}.log'}",
        "-graph",
        f"file={run_dir / 'graph.html'}",
        f"revision={name}",
        "--workdir",
        str(run_dir / name),
    ]
    environment = {**os.environ, "CASSLAB_HOME": str(home), "COLUMNS": "250", **env}
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment
    )
    # the CLI's own argv holds a password typed as password=: the user put it there
    with _ArgvWatch(proc.pid, allowed_pid=proc.pid if SECRET in mode else None) as watch:
        try:
            stdout, stderr = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return subprocess.CompletedProcess(args, proc.returncode, stdout, stderr), watch


def _grep(directory: Path) -> str:
    found = subprocess.run(
        ["grep", "-r", "-a", "-l", "-F", SECRET, str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.returncode in (0, 1), found.stderr  # 1: nothing found
    return found.stdout


def test_password_stays_out_of_files_and_argv_and_the_login_works(tmp_path: Path) -> None:
    spec = cluster_spec(
        name="secrets",
        nodes=1,
        heap="512M",
        base_address=NODE,
        jmx_port_base=8100,
        jvm_options=LIGHT,
        settings={"authenticator": "PasswordAuthenticator"},
    )
    home, run_dir, clusters = tmp_path / "home", tmp_path / "run", tmp_path / "clusters"
    run_dir.mkdir()
    with LocalCluster.create(spec, clusters, remove_on_exit=True):
        _wait_for_login(NODE, "cassandra", "cassandra")
        _create_role(NODE)
        _wait_for_login(NODE, "alice", SECRET)

        runs = {
            # by reference: the password is on no command line at all
            "by-env": _stress(
                home,
                run_dir,
                "by-env",
                "password-env=CASSLAB_TEST_SECRET",
                {"CASSLAB_TEST_SECRET": SECRET},
            ),
            # typed inline: the engine still gets it through its environment only
            "inline": _stress(home, run_dir, "inline", f"password={SECRET}", {}),
        }
        for name, (done, watch) in runs.items():
            assert done.returncode == 0, f"{name}\n{done.stdout}\n{done.stderr}"
            assert "Results:" in done.stdout, done.stdout  # logged in and wrote
            assert SECRET not in done.stdout + done.stderr
            assert watch.engine_seen, f"{name}: the engine process was never observed"
            assert watch.leaks == [], f"{name}: the password is in a command line"
        assert f"password={MASK}" in runs["inline"][0].stdout  # the `Running ...` line

        assert _grep(run_dir) == "", "the password is in a file of the run"
        assert _grep(clusters) == "", "the password is in a file of the cluster"
        if home.exists():
            assert _grep(home) == "", "the password is in a file under CASSLAB_HOME"
