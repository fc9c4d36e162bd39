"""``casslab tune`` end to end on a real node (512M heap) through the real CLI, the real
runner and the real engine: a study of 3 trials is interrupted by SIGINT during its second
trial, resumed with the printed command, and writes ``tuning.json``, the recommendation
files and ``report.html``. Kept short: 3,000 preloaded rows, 4 s measured phases, no JVM
warm-up, a budget of 3 trials (the interrupted second one is asked again and a third
follows it: what the resume proves needs no more), one candidate confirmed twice, and a
space of table options only, so the node starts twice (first run, resume) and never
restarts in between (each restart costs ~25 s here; that a config.* candidate becomes the
trial's settings, which restart the nodes, is tests/tune/test_space.py's, and the restart
itself the runner's tests'). Address 127.0.242.1, JMX ports 9700-9710 (reserved for these
tests).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from cli_entry import NEEDS_ENGINE, flat
from cli_entry import casslab as run_casslab

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

NODE = "127.0.242.1"
JMX = "9700"

TUNE_FILE = """\
name: tune-it
cluster:
  nodes: 1
  version: 5.0.9
  heap: 512M
  # light JVMs (tests/jit.py): the loop, not the figures
  jvm_options: ["-XX:TieredStopAtLevel=1", "-Dcassandra.approximate_time_precision_ms=20"]
  config: {auto_snapshot: false}
table: {compaction: STCS}
preload: "write n=3000 cl=ONE -pop seq=1..3000 -rate threads=4"
workload: "mixed ratio(write=9,read=1)"
measure: "duration=4s cl=ONE -pop dist=UNIFORM(1..3000) -rate threads=4"
reset: recreate
tune:
  space:
    table.bloom_filter_fp_chance: {float: [0.01, 0.1], log: true}
    table.compaction:
      STCS: {min_threshold: {int: [2, 8]}}
      LCS: {}
  objective: {goal: max-throughput, p99_ms_max: 1000}
  budget: {trials: 3}
  confirm: {top: 1, repetitions: 2}
  jvm_warmup: 0s
"""


def _wait_for(path: Path, pattern: str, proc: subprocess.Popen[str], limit_s: float) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if re.search(pattern, path.read_text()):
            return
        assert proc.poll() is None, f"casslab tune exited early:\n{path.read_text()}"
        time.sleep(0.5)
    raise AssertionError(f"no {pattern!r} within {limit_s:g} s:\n{path.read_text()}")


def _leftovers(home: Path) -> list[int]:
    """PIDs of Cassandra JVMs or engines running from this test's directories."""
    found = []
    for process in psutil.process_iter(["pid", "cmdline"]):
        if str(home) in " ".join(process.info["cmdline"] or []):
            found.append(process.info["pid"])
    return found


def test_a_study_runs_is_interrupted_resumes_and_writes_its_results(tmp_path: Path) -> None:
    (tmp_path / "tune-it.yaml").write_text(TUNE_FILE)
    home = tmp_path / "home"
    runs = tmp_path / "runs"
    argv = ["tune", "tune-it.yaml", "--runs-dir", str(runs), "--base-address", NODE]
    argv += ["--jmx-port-base", JMX]
    env = {**os.environ, "CASSLAB_HOME": str(home), "COLUMNS": "200"}
    log = tmp_path / "first.out"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "casslab", *argv],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            text=True,
            start_new_session=True,
        )
    try:
        _wait_for(log, r"s001:", proc, 300)  # the default configuration is measured
        time.sleep(3)  # into the second trial
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=120) == 130, log.read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    first = flat(log.read_text())
    assert "Interrupted by SIGINT" in first, first
    assert "Traceback" not in first, first
    resume = re.search(r"resume with: (casslab tune .*?--jmx-port-base 9700)", first)
    assert resume is not None, first
    assert _leftovers(home) == []  # the node went with the interrupt

    again = resume.group(1).split()[1:]  # with the same address and ports: the hint's
    done = run_casslab(home, *again, cwd=tmp_path, timeout_s=420)
    out = flat(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "resuming: 1 trial(s) finished, 1 interrupted" in out, out
    assert _leftovers(home) == []

    run_dir = Path(resume.group(1).split(" --resume ")[1].split()[0])
    result = json.loads((tmp_path / run_dir / "tuning.json").read_text())
    assert set(result) >= {"best", "default", "trials"}
    assert set(result["best"]) >= {"params", "objective", "ci"}
    assert len(result["trials"]) == 3  # the interrupted one asked again, not counted twice
    assert result["trials"][0]["role"] == "default"
    assert all(t["measurement"]["finished"] for t in result["trials"])
    assert all(t["measurement"]["op_rate"] > 0 for t in result["trials"])
    assert len(result["confirm_trials"]) == 4  # A B A B
    assert result["recommendation"]["verdict"] in {"significant gain", "no significant gain"}
    assert (tmp_path / run_dir / "recommended.flags").is_file()
    fragment = (tmp_path / run_dir / "recommended.yaml").read_text()
    assert "ALTER TABLE keyspace1.<table> WITH compaction = {" in fragment, fragment
    report = (tmp_path / run_dir / "report.html").read_text()
    assert "optimisation history" in report
    assert "parallel coordinates" in report
    labels = [t["measurement"]["label"] for t in result["trials"]]
    assert labels == ["s000", "s002", "s003"]  # s001 was the interrupted one
    for label in [*labels, "confirm-d-1", "confirm-c1-2"]:
        assert (tmp_path / run_dir / "trials" / label / "1" / "summary.json").is_file(), label
