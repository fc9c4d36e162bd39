"""A rolling upgrade under load on a real 2-node cluster (RF 2), 200 op/s QUORUM writes
with ``verify: QUORUM``: from Cassandra 5.0.8 to 5.0.9, node 1 then node 2 drained,
stopped and started on 5.0.9 with their data (the cluster runs both versions in between);
no acknowledged write is lost, each node's steps are in the window, both nodes then say
5.0.9 and the cluster's record too. ``casslab upgrade --to 4.1.5`` is refused before any
node stops: this JDK cannot run 4.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_entry import NEEDS_ENGINE, casslab, flat
from operation_runs import only_trial, run_file, two_nodes

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

NAME = "upgrade2"
PLACE = ["--heap", "512M", "--base-address", "127.0.250.1", "--jmx-port-base", "9900"]
# 150 s at 200/s at most: 10 s before, two node restarts (46 s on an idle machine, more on
# a busy one); the phase ends 5 s after the upgrade (after_operations)
WRITES = 30000

EXPERIMENT = f"""
name: upgrade
cluster: {{use: {NAME}}}
schema: {{keyspace: keyspace1, replication: {{class: SimpleStrategy, replication_factor: 2}}}}
workload: "write n={WRITES} cl=QUORUM -pop seq=1..{WRITES} -rate threads=16 fixed=200/s"
faults: [{{at: 10s, kind: upgrade, target: all, to: 5.0.9}}]
iterations: 1
verify: QUORUM
after_operations: 5s
kpis: [op_rate, operation_s, operation_errors, operation_recovery_s, operations_failed,
  lost_writes, verified_writes]
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from two_nodes(tmp_path_factory, "upgrade", NAME, "--version", "5.0.8", *PLACE)


def _version(home: Path, number: int) -> str:
    said = casslab(
        home, "cqlsh", str(number), "--name", NAME, "-e",
        "SELECT release_version FROM system.local",
    )  # fmt: skip
    assert said.returncode == 0, said.stdout + said.stderr
    return said.stdout


def test_a_rolling_upgrade_under_load_loses_no_write(home: Path, tmp_path: Path) -> None:
    assert "5.0.8" in _version(home, 1)
    results, said, code = run_file(home, tmp_path, "upgrade", EXPERIMENT)
    assert code == 0, said[-6000:]
    summary, faults = only_trial(results, said)
    [record] = faults["faults"]
    assert record["error"] is None, record
    assert [(s["node"], s["step"]) for s in record["steps"]] == [
        (1, "drain"), (1, "stop"), (1, "start"), (2, "drain"), (2, "stop"), (2, "start"),
    ]  # fmt: skip
    [window] = faults["windows"]
    assert window["operation"] is True
    assert window["steps"] == record["steps"]
    # the phase ended 5 s after the upgrade (the timeline's clock starts with the engine,
    # some seconds before its measured phase: its connection and schema), before its writes
    measured_s = summary["engine"]["duration_s"]
    assert record["ended_s"] - 5 <= measured_s <= record["ended_s"] + 5 + 3, measured_s
    assert summary["engine"]["total"]["count"] < WRITES
    kpis = summary["kpis"]
    assert kpis["operations_failed"] == 0
    acknowledged = summary["engine"]["total"]["count"]
    assert acknowledged > 0
    assert (kpis["verified_writes"], kpis["lost_writes"]) == (acknowledged, 0)
    for number in (1, 2):
        assert "5.0.9" in _version(home, number)
    state = json.loads((home / "clusters" / NAME / "state.json").read_text())
    assert state["cassandra_version"] == "5.0.9"
    assert all(n["version"] is None for n in state["nodes"])
    print(json.dumps(faults["windows"]))
    refused = casslab(home, "upgrade", "--to", "4.1.5", "--name", NAME)
    assert refused.returncode != 0
    assert "Cassandra 4.1.5 needs JDK" in flat(refused.stderr)
    assert "5.0.9" in _version(home, 2)  # nothing stopped
