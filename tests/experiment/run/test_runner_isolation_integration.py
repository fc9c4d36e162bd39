"""A real experiment whose factor is the node's isolation: one node as a plain process, then
in its own network namespace and cgroup; both trials measured, and nothing left behind."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from casslab.cluster.isolated import network
from casslab.cluster.isolated.cluster import cluster_id
from casslab.store.run_records import TrialResult, TrialStatus
from cli_entry import NEEDS_ENGINE, casslab, processes_under

pytestmark = [
    pytest.mark.integration,
    *NEEDS_ENGINE,
    pytest.mark.skipif(os.geteuid() != 0, reason="namespaces and cgroups need root"),
    pytest.mark.skipif(
        not (shutil.which("ip") and shutil.which("nsenter")), reason="needs ip and nsenter"
    ),
]

EXPERIMENT = """\
name: isolation-levels
cluster: {nodes: 1, heap: 512M, config: {auto_snapshot: false}}
factors:
  cluster.isolation: [process, netns]
workload: write
measure: "duration=5s cl=ONE -rate threads=4"
iterations: 1
order: sequential
reset: truncate
kpis: [op_rate, latency_p99_ms, cassandra_cpu_pct, container_cpu_pct]
"""


def test_an_isolation_factor_runs_both_levels_and_leaves_nothing(tmp_path: Path) -> None:
    home, results = tmp_path / "home", tmp_path / "results"
    experiment = tmp_path / "isolation-levels.yaml"
    experiment.write_text(EXPERIMENT, encoding="utf-8")

    done = casslab(
        home,
        "run",
        str(experiment),
        "--results",
        str(results),
        "--base-address",
        "127.0.232.1",
        "--jmx-port-base",
        "9120",
        "--jvm-warmup",
        "0",
        timeout_s=600,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = list((results / "isolation-levels").iterdir())
    summaries = sorted(run_dir.glob("trials/*/*/summary.json"))
    by_cell = {
        r.cell_id: r for r in (TrialResult.model_validate_json(p.read_text()) for p in summaries)
    }
    assert set(by_cell) == {"isolation=process", "isolation=netns"}
    for result in by_cell.values():
        assert result.status is TrialStatus.OK, result.error
        assert (result.kpis.get("op_rate") or 0) > 0
    # the netns node ran in its own cgroup: its container CPU was measured
    assert by_cell["isolation=netns"].kpis.get("container_cpu_pct") is not None
    plan = json.loads((run_dir / "plan.json").read_text())["plan"]
    assert plan["schema_version"] == 3
    isolation = [t["node_isolation"]["isolation"] for t in plan["trials"]]
    assert isolation == ["process", "netns"]
    assert [t["restart_reason"] for t in plan["trials"]] == ["first", "isolation"]

    ident = cluster_id(home / "clusters" / "run-isolation-levels")
    assert network.namespaces_of(ident) == []
    assert network.links_of(ident) == []
    assert processes_under(home) == []
