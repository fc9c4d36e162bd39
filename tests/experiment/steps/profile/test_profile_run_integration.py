"""`profile: [cpu]` in a real experiment: one node, one trial of 10 measured seconds of
writes; the trial leaves a JFR recording of its node and a CPU flame graph whose hottest
frames include Cassandra's write path."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote

import psutil
import pytest

from casslab.report.flame.diff import method_shares
from casslab.report.flame.stacks import parse_collapsed
from cli_entry import NEEDS_ENGINE
from write_path import write_path_percent

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

EXPERIMENT = """\
name: profiled
cluster: {nodes: 1, heap: 512M}
schema: {replication: {class: SimpleStrategy, replication_factor: 1}}
factors:
  table.compaction: [SizeTieredCompactionStrategy]
workload: "write"
warmup: 3s
measure: "duration=10s cl=ONE -pop dist=UNIFORM(1..100000) -rate threads=32"
iterations: 1
reset: truncate
profile: [cpu]
"""


def _stop_leftovers(home: Path) -> None:
    """Processes of this test's casslab home that outlived the run (there should be none),
    killed by PID."""
    for process in psutil.process_iter(["pid", "cmdline"]):
        if str(home) in " ".join(process.info["cmdline"] or []):
            process.kill()


def test_a_profiled_trial_draws_its_nodes_write_path(tmp_path: Path) -> None:
    home, results = tmp_path / "home", tmp_path / "results"
    experiment = tmp_path / "profiled.yaml"
    experiment.write_text(EXPERIMENT, encoding="utf-8")
    command = [sys.executable, "-m", "casslab", "run", str(experiment), "--results"]
    command += [str(results), "--base-address", "127.0.105.1", "--jmx-port-base", "7650"]
    command += ["--jvm-warmup", "0"]  # the profile is of the measured phase, warm or not
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "CASSLAB_HOME": str(home), "COLUMNS": "160"},
            check=False,
        )
    finally:
        _stop_leftovers(home)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (profile_dir,) = list(results.glob("profiled/*/trials/*/*/profile"))
    assert (profile_dir / "node1.jfr").stat().st_size > 100_000
    cpu = parse_collapsed((profile_dir / "node1-cpu.collapsed").read_text())
    total = sum(cpu.values())
    assert total > 50
    on_write_path = write_path_percent(cpu)
    top = sorted(method_shares(cpu).items(), key=lambda kv: -kv[1])[:25]
    # measured: with the JVM warm-up, 4.3% of the samples under Mutation/Keyspace.apply/
    # ModificationStatement alone on a quiet machine, 1.6% (1 of 61 samples) on CI's busy
    # one: JFR samples only threads running Java code, and its 64-frame stacks cut the
    # deepest. Without it, every stack through the write path (memtable and commit log
    # included): 69 of 415 samples (16.6%) on a busy machine; 2% leaves a starved node room.
    print(f"write path: {on_write_path:.1f}% of {total} samples")
    assert on_write_path > 2.0, top
    assert ET.parse(profile_dir / "node1-cpu.svg").getroot().tag.endswith("svg")
    run_dir = profile_dir.parents[3]  # run/trials/<cell>/<iteration>/profile
    assert quote(str((profile_dir / "node1-cpu.svg").relative_to(run_dir))) in (
        run_dir / "report.html"
    ).read_text(encoding="utf-8")  # the report links the trial's flame graph
