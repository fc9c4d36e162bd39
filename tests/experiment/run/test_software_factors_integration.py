"""Real experiments whose factor is what the nodes run: the Cassandra version (one node of
5.0.8, then one of 5.0.9, the jars fetched when missing), the garbage collector (G1 as
Cassandra ships it, then ZGC) and the JDK (``cluster.java_home``); a new cluster per
level, each trial recording the version, JDK and collector its node ran (that the JVM
runs the collector asked for: tests/cluster/test_collectors_integration.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from casslab.store.run_records import TrialResult, TrialStatus
from cli_entry import NEEDS_ENGINE, casslab

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

# 4 s phases and light JVMs (tests/jit.py): the tests check what each trial ran on, not
# how fast
EXPERIMENT = """\
name: {name}
cluster: {{nodes: 1, heap: 512M, config: {{auto_snapshot: false}},
  jvm_options: ["-XX:TieredStopAtLevel=1", "-Dcassandra.approximate_time_precision_ms=20"]}}
factors:
  {factor}: [{levels}]
workload: write
measure: "duration=4s cl=ONE -rate threads=4"
iterations: 1
order: sequential
"""


def _run(
    tmp_path: Path, name: str, factor: str, levels: str
) -> tuple[Path, dict[str, TrialResult]]:
    """Run the two-level experiment; its run directory and each cell's trial result (every
    trial ok, with load measured)."""
    home, results = tmp_path / "home", tmp_path / "results"
    experiment = tmp_path / f"{name}.yaml"
    text = EXPERIMENT.format(name=name, factor=factor, levels=levels)
    experiment.write_text(text, encoding="utf-8")
    done = casslab(
        home,
        "run",
        str(experiment),
        "--results",
        str(results),
        "--base-address",
        "127.0.106.1",
        "--jmx-port-base",
        "9160",
        "--jvm-warmup",
        "0",
        timeout_s=900,  # a fresh machine fetches 5.0.8's jars first
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = list((results / name).iterdir())
    summaries = run_dir.glob("trials/*/*/summary.json")
    by_cell = {
        r.cell_id: r for r in (TrialResult.model_validate_json(p.read_text()) for p in summaries)
    }
    for result in by_cell.values():
        assert result.status is TrialStatus.OK, result.error
        assert (result.kpis.get("op_rate") or 0) > 0
    return run_dir, by_cell


def _restart_reasons(run_dir: Path) -> list[str]:
    plan = json.loads((run_dir / "plan.json").read_text())["plan"]
    return [t["restart_reason"] for t in plan["trials"]]


def test_each_version_level_runs_on_a_node_of_that_version(tmp_path: Path) -> None:
    run_dir, by_cell = _run(tmp_path, "versions", "cluster.version", "5.0.8, 5.0.9")
    assert set(by_cell) == {"version=5.0.8", "version=5.0.9"}
    for cell, result in by_cell.items():
        assert result.cassandra_version == cell.removeprefix("version=")
        assert result.java_feature is not None
    assert _restart_reasons(run_dir) == ["first", "version"]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["cassandra_version"] == "5.0.8, 5.0.9"
    trials = pd.read_parquet(run_dir / "trials.parquet").set_index("cell_id")
    assert trials.loc["version=5.0.8", "cassandra_version"] == "5.0.8"
    assert trials.loc["version=5.0.9", "cassandra_version"] == "5.0.9"


def test_each_gc_level_runs_its_collector(tmp_path: Path) -> None:
    run_dir, by_cell = _run(tmp_path, "collectors", "cluster.gc", "G1, ZGC")
    assert {cell: r.gc for cell, r in by_cell.items()} == {"gc=G1": "G1", "gc=ZGC": "ZGC"}
    assert _restart_reasons(run_dir) == ["first", "gc"]


# this machine's one JDK that runs Cassandra 5.0, under its two names (Debian's alternatives
# link): two levels whose nodes must each run the java of the level's home
JDK_HOMES = ("/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/java-1.17.0-openjdk-amd64")


def test_each_jdk_level_runs_its_nodes_on_that_jdk(tmp_path: Path) -> None:
    missing = [home for home in JDK_HOMES if not Path(home, "bin", "java").is_file()]
    if missing:
        pytest.skip(f"no JDK at {', '.join(missing)}")
    run_dir, by_cell = _run(tmp_path, "jdks", "cluster.java_home", ", ".join(JDK_HOMES))
    assert _restart_reasons(run_dir) == ["first", "java_home"]
    ran = {result.jdk for result in by_cell.values()}
    assert {jdk.partition(" at ")[2] for jdk in ran if jdk} == {f"{h}/bin/java" for h in JDK_HOMES}
    assert all(jdk and jdk.startswith("17.") for jdk in ran), ran
    trials = pd.read_parquet(run_dir / "trials.parquet")
    assert sorted(trials["jdk"]) == sorted(ran)
