"""A real experiment with clock skew as a factor: 2 nodes, node 2 on time then 500 ms
behind (set without a restart), the lww probe after each trial: nothing lost on time,
every acknowledged update lost behind; the report has its "Lost updates" section."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.engine]

EXPERIMENT = Path(__file__).parents[2] / "data" / "clock-skew.yaml"


def test_clock_skew_levels_lose_updates_without_a_restart(tmp_path: Path) -> None:
    home, results = tmp_path / "home", tmp_path / "results"
    env = {**os.environ, "CASSLAB_HOME": str(home), "COLUMNS": "160"}
    command = [sys.executable, "-m", "casslab", "run", str(EXPERIMENT), "--results"]
    command += [str(results), "--base-address", "127.0.236.1", "--jmx-port-base", "9420"]
    command += ["--jvm-warmup", "0"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    (run,) = results.glob("clock-skew/*/")
    summaries = {
        s["cell_id"]: s
        for s in (json.loads(p.read_text()) for p in run.glob("trials/*/*/summary.json"))
    }
    on_time, behind = summaries["clock=on-time"], summaries["clock=n2-500ms"]
    assert on_time["status"] == behind["status"] == "ok"
    assert on_time["kpis"]["lww_lost_pct"] == 0
    assert behind["kpis"]["lww_lost_pct"] == 100  # v2 stamped 400 ms before v1
    assert behind["kpis"]["lww_unacknowledged_pct"] == 0
    assert behind["kpis"]["expired_messages"] == 0  # 500 ms is inside the 2 s timeout
    plan = json.loads((run / "plan.json").read_text())
    trials = plan.get("plan", plan)["trials"]
    assert [t["restart"] for t in trials] == [True, False]  # the clock changed in place
    assert {t["cell_id"]: t["clock"] for t in trials}["clock=n2-500ms"] == {"2": -500.0}
    report = (run / "report.html").read_text(encoding="utf-8")
    assert "Lost updates" in report
    assert "10/10 (100.0%)" in report
    clocks = sorted(home.glob("clusters/*/node2/conf/clock"))
    assert clocks == []  # the run removed its cluster
