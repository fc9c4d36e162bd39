"""A real experiment whose factors are the node's isolation and its CPU limit: one node as a
plain process, then in its own network namespace and cgroup, unlimited and at 0.5 CPU; every
trial measured, the report's bottleneck per cell judging the limited node's CPU against the
quota its records hold, and nothing left behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casslab.cluster.isolated import network
from casslab.cluster.isolated.cluster import cluster_id
from casslab.report import read_run
from casslab.report.bottlenecks import bottleneck_section
from casslab.store.run_records import TrialResult, TrialStatus
from cli_entry import NEEDS_ENGINE, casslab, processes_under
from netns_marks import NEEDS_NETNS

pytestmark = [
    pytest.mark.integration,
    *NEEDS_ENGINE,
    *NEEDS_NETNS,
]

# ofat from the unlimited netns node: the process node, then the same netns node at half a
# CPU (a cluster.cpus change makes a new cluster: three clusters of one node)
EXPERIMENT = """\
name: isolation-levels
cluster: {nodes: 1, heap: 512M, config: {auto_snapshot: false}}
factors:
  cluster.isolation: [process, netns]
  cluster.cpus: [null, 0.5]
design: ofat
baseline: {cluster.isolation: netns}
workload: write
measure: "duration=5s cl=ONE -rate threads=4"
iterations: 1
order: sequential
reset: truncate
kpis: [op_rate, latency_p99_ms, cassandra_cpu_pct, container_cpu_pct]
"""
NETNS, PROCESS, LIMITED = (
    "isolation=netns,cpus=None",
    "isolation=process,cpus=None",
    "isolation=netns,cpus=0.5",
)


@pytest.mark.measuring  # the limited node's CPU against its quota under load
def test_isolation_and_cpu_factors_run_every_level_and_leave_nothing(tmp_path: Path) -> None:
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
    assert set(by_cell) == {NETNS, PROCESS, LIMITED}
    for result in by_cell.values():
        assert result.status is TrialStatus.OK, result.error
        assert (result.kpis.get("op_rate") or 0) > 0
    # the netns nodes ran in their own cgroup: their container CPU was measured
    assert by_cell[NETNS].kpis.get("container_cpu_pct") is not None
    assert by_cell[LIMITED].kpis.get("container_cpu_pct") is not None
    plan = json.loads((run_dir / "plan.json").read_text())["plan"]
    assert plan["schema_version"] == 3
    isolation = [
        (t["node_isolation"]["isolation"], t["node_isolation"]["cpus"]) for t in plan["trials"]
    ]
    assert isolation == [("netns", None), ("process", None), ("netns", 0.5)]
    assert [t["restart_reason"] for t in plan["trials"]] == ["first", "isolation", "isolation"]

    # the report of the run: the limited cell is bound by its node's CPU, against its quota
    run = read_run(run_dir)
    section = bottleneck_section(run, [NETNS, PROCESS, LIMITED])
    assert section is not None
    rows = {row.cells[0]: row.cells for row in section.tables[0].rows}
    seen = json.dumps(rows, indent=1)
    print(seen)
    assert rows[LIMITED][1] == "node_cpu", seen
    assert "of its 0.5 CPU limit" in rows[LIMITED][3], seen
    for unlimited in (NETNS, PROCESS):  # whatever else limited them, no quota did
        assert rows[unlimited][1] != "node_cpu", seen
        assert "CPU limit" not in rows[unlimited][3], seen
    # ... and the unlimited netns node, with a cgroup but no quota, is named as such
    (no_quota,) = [p for p in section.paragraphs if "quota is not in the records" in p]
    assert by_cell[NETNS].trial_id in no_quota
    assert by_cell[LIMITED].trial_id not in no_quota
    report = (run_dir / "report.html").read_text(encoding="utf-8")
    assert rows[LIMITED][3] in report  # the report as written says so
    assert no_quota in (run_dir / "summary.md").read_text(encoding="utf-8")

    ident = cluster_id(home / "clusters" / "run-isolation-levels")
    assert network.namespaces_of(ident) == []
    assert network.links_of(ident) == []
    assert processes_under(home) == []
