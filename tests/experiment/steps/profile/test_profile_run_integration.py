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
    assert sum(cpu.values()) > 50
    shares = method_shares(cpu)
    write_path = [
        s
        for f, s in shares.items()
        if f.startswith(
            (
                "org.apache.cassandra.db.Mutation",
                "org.apache.cassandra.db.Keyspace.apply",
                "org.apache.cassandra.cql3.statements.ModificationStatement",
            )
        )
    ]
    top = sorted(shares.items(), key=lambda kv: -kv[1])[:25]
    # measured: 4.3% of the samples in Mutation/Keyspace.apply/ModificationStatement frames
    # (JFR's 64-frame stacks cut the deepest); the netty and buffer frames lead
    assert max(write_path, default=0.0) > 2.0, top
    assert ET.parse(profile_dir / "node1-cpu.svg").getroot().tag.endswith("svg")
    run_dir = profile_dir.parents[3]  # run/trials/<cell>/<iteration>/profile
    assert quote(str((profile_dir / "node1-cpu.svg").relative_to(run_dir))) in (
        run_dir / "report.html"
    ).read_text(encoding="utf-8")  # the report links the trial's flame graph
