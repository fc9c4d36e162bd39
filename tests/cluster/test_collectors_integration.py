"""`casslab up --gc ZGC`: the node's JVM runs ZGC (its command line and its own GC log say
so), not Cassandra's G1 settings; a stored cluster asked for another collector is refused."""

from __future__ import annotations

import json
from pathlib import Path

import psutil
import pytest

from cli_entry import casslab

pytestmark = [pytest.mark.integration]

NAME = "zgc1"
PLACE = ["--heap", "512M", "--base-address", "127.0.107.1", "--jmx-port-base", "9170"]


def test_up_with_zgc_runs_zgc(tmp_path: Path) -> None:
    home = tmp_path / "home"
    up = casslab(home, "up", "--nodes", "1", "--name", NAME, "--gc", "zgc", *PLACE)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        state = json.loads((home / "clusters" / NAME / "state.json").read_text())
        assert state["spec"]["gc"] == "ZGC"
        [node] = state["nodes"]
        cmdline = psutil.Process(node["pid"]).cmdline()
        assert "-XX:+UseZGC" in cmdline
        assert not [flag for flag in cmdline if "G1" in flag]
        gc_log = Path(node["directory"]) / "logs" / "gc.log"
        assert "Using The Z Garbage Collector" in gc_log.read_text(errors="replace")
        casslab(home, "down", "--name", NAME)
        again = casslab(home, "up", "--name", NAME, "--gc", "G1", *PLACE)
        assert again.returncode != 0
        assert "gc: asked G1, the stored cluster has ZGC" in again.stdout + again.stderr
    finally:
        casslab(home, "down", "--remove", "--name", NAME)
