"""A decommission under load on a real 3-node cluster (RF 2), 200 op/s QUORUM writes
with ``verify: QUORUM``: node 3 streams its data away and leaves; the ring is then 2 nodes,
both UN, the cluster's record has 2 nodes, every acknowledged write reads back, and the
window has the bytes node 3 streamed. A second decommission on that 2-node ring at RF 2
is refused before its load starts, naming the keyspace and its replication factor."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_entry import NEEDS_ENGINE, casslab, flat

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

NAME = "decom3"
PLACE = ["--heap", "512M", "--base-address", "127.0.249.1", "--jmx-port-base", "9880"]
WRITES = 8000  # 40 s at 200/s

EXPERIMENT = f"""
name: decommission
cluster: {{use: {NAME}}}
schema: {{keyspace: keyspace1, replication: {{class: SimpleStrategy, replication_factor: 2}}}}
workload: "write n={WRITES} cl=QUORUM -pop seq=1..{WRITES} -rate threads=16 fixed=200/s"
faults: [{{at: 10s, kind: decommission, target: TARGET}}]
iterations: 1
verify: QUORUM
kpis: [op_rate, operation_s, operation_errors, operations_failed, lost_writes,
  verified_writes]
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("decommission-home")
    up = casslab(folder, "up", "--nodes", "3", "--name", NAME, *PLACE, "--timeout", "300")
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        yield folder
    finally:
        casslab(folder, "down", "--remove", "--name", NAME)


def _run(home: Path, tmp_path: Path, target: int, name: str) -> tuple[Path, str]:
    path = tmp_path / f"{name}.yaml"
    text = EXPERIMENT.replace("TARGET", str(target))
    path.write_text(text.replace("name: decommission", f"name: {name}"))
    results = tmp_path / name
    done = casslab(home, "run", str(path), "--results", str(results), "--jvm-warmup", "0")
    return results, done.stdout + done.stderr


def test_decommission_under_load_leaves_a_two_node_ring(home: Path, tmp_path: Path) -> None:
    results, said = _run(home, tmp_path, 3, "decommission")
    [summary_path] = results.glob("*/*/trials/*/1/summary.json")
    summary = json.loads(summary_path.read_text())
    assert summary["status"] == "ok", (summary.get("error"), said[-3000:])
    faults = json.loads((summary_path.parent / "faults.json").read_text())
    [record] = faults["faults"]
    assert record["error"] is None, record
    decommission, stop = record["steps"]
    assert (decommission["node"], decommission["step"], stop["step"]) == (3, "decommission", "stop")
    assert decommission["bytes_streamed"] > 0  # node 3's replicas went to the others
    [window] = faults["windows"]
    assert window["operation"] is True
    assert window["end_s"] > window["start_s"]
    kpis = summary["kpis"]
    assert kpis["operations_failed"] == 0
    acknowledged = summary["engine"]["total"]["count"]
    assert (kpis["verified_writes"], kpis["lost_writes"]) == (acknowledged, 0)
    # the ring: 2 nodes, both up and normal; the cluster's record: 2 nodes
    ring = casslab(home, "nodetool", "1", "status", "--name", NAME)
    assert ring.returncode == 0, ring.stdout + ring.stderr
    assert sorted(re.findall(r"^(UN)\s+(127\.0\.249\.\d+)", ring.stdout, re.M)) == [
        ("UN", "127.0.249.1"),
        ("UN", "127.0.249.2"),
    ]
    state = json.loads((home / "clusters" / NAME / "state.json").read_text())
    assert [n["number"] for n in state["nodes"]] == [1, 2]
    print(json.dumps(faults["windows"]))
    # below RF 2 now: refused before the load starts
    results, said = _run(home, tmp_path, 2, "below-rf")
    assert "keyspace1 (RF 2)" in flat(said) or any(
        "keyspace1 (RF 2)" in p.read_text() for p in results.glob("**/summary.json")
    ), said[-3000:]
