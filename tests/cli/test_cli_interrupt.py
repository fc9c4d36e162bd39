"""Ctrl-C during `casslab up` leaves no JVM behind (real nodes)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.integration


def _jvms(home: Path) -> list[int]:
    return [
        p.info["pid"]
        for p in psutil.process_iter(["pid", "cmdline"])
        if str(home) in " ".join(p.info["cmdline"] or [])
        and "CassandraDaemon" in " ".join(p.info["cmdline"] or [])
    ]


def test_ctrl_c_during_up_stops_every_started_node(tmp_path: Path) -> None:
    env = {**os.environ, "CASSLAB_HOME": str(tmp_path)}
    up = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "casslab",
            "up",
            "--nodes",
            "2",
            "--heap",
            "512M",
            "--base-address",
            "127.0.105.1",
            "--jmx-port-base",
            "7660",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 120
        while len(_jvms(tmp_path)) < 2 and time.monotonic() < deadline:
            assert up.poll() is None, up.communicate()[0]
            time.sleep(0.1)
        assert len(_jvms(tmp_path)) == 2
        up.send_signal(signal.SIGINT)
        output, _ = up.communicate(timeout=120)
    finally:
        if up.poll() is None:
            up.kill()
    assert up.returncode == 130, output
    assert _jvms(tmp_path) == []
