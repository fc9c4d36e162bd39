"""Operations on a real 2-node cluster (RF 2) under a 200 op/s QUORUM write load with
``verify: QUORUM``: node 2 restarted (drain, stop, start until both nodes see each other
UP/NORMAL), then a full repair of node 1 and a flush of node 2, each ending when done.
``faults.json`` has each operation's window with its steps per node, and the trial's
``operation_*`` KPIs; no acknowledged write is lost (at RF 2 QUORUM needs both replicas,
so writes fail while node 2 is down: the window counts them by kind). The measured phase
ends 6 s after the last operation (``after_operations``), and the read-back still runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_entry import NEEDS_ENGINE
from operation_runs import only_trial, run_file, two_nodes

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

NAME = "ops2"
PLACE = ["--heap", "512M", "--base-address", "127.0.248.1", "--jmx-port-base", "9860"]
# 120 s at 200/s at most: 10 s before the restart, its 15-40 s, the repair and the flush;
# the phase ends 6 s after the flush (after_operations), the windows' "after" seconds
WRITES = 24000

EXPERIMENT = f"""
name: operations
cluster: {{use: {NAME}}}
schema: {{keyspace: keyspace1, replication: {{class: SimpleStrategy, replication_factor: 2}}}}
workload: "write n={WRITES} cl=QUORUM -pop seq=1..{WRITES} -rate threads=16 fixed=200/s"
faults:
  - {{at: 10s, kind: restart, target: 2}}
  - {{at: 11s, kind: repair, target: 1}}
  - {{at: 12s, kind: flush, target: 2}}
iterations: 1
verify: QUORUM
after_operations: 6s
kpis: [op_rate, operation_s, operation_errors, operation_p99_ms, operation_recovery_s,
  operations_failed, lost_writes, verified_writes]
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from two_nodes(tmp_path_factory, "operations", NAME, *PLACE)


def test_restart_repair_and_flush_windows_under_load(home: Path, tmp_path: Path) -> None:
    results, said, code = run_file(home, tmp_path, "operations", EXPERIMENT)
    assert code == 0, said[-6000:]
    summary, faults = only_trial(results, said)
    restart, repair, flush = faults["faults"]
    for record in (restart, repair, flush):
        assert record["error"] is None, record
        assert record["operation"] is True
        assert record["planned_for_s"] is None
    # the restart's steps, in order, inside its window, on node 2
    assert [(s["node"], s["step"]) for s in restart["steps"]] == [
        (2, "drain"),
        (2, "stop"),
        (2, "start"),
    ]
    assert 9.5 < restart["began_s"] < 13
    start = restart["steps"][2]
    assert restart["began_s"] <= restart["steps"][0]["start_s"]
    assert start["start_s"] + start["duration_s"] <= restart["ended_s"] + 0.01
    assert start["duration_s"] > 1  # a JVM's start-up, until UP/NORMAL
    # the repair and the flush waited for the restart: the timeline runs one at a time
    assert repair["began_s"] >= restart["ended_s"]
    assert flush["began_s"] >= repair["ended_s"]
    # the phase ended 6 s after the flush (the timeline's clock starts with the engine,
    # some seconds before its measured phase: its connection and schema), before its writes
    measured_s = summary["engine"]["duration_s"]
    assert flush["ended_s"] - 5 <= measured_s <= flush["ended_s"] + 6 + 3, measured_s
    assert summary["engine"]["total"]["count"] < WRITES
    assert [s["step"] for s in repair["steps"]] == ["repair"]
    windows = {w["kind"]: w for w in faults["windows"]}
    assert set(windows) == {"restart", "repair", "flush"}
    for w in windows.values():
        assert w["operation"] is True
        assert w["before_op_rate"] is not None
    # at RF 2 QUORUM needs node 2: writes fail while it is down, and only then
    assert windows["restart"]["errors"] > 0
    assert windows["restart"]["errors_by_kind"]
    assert windows["restart"]["before_p99_ms"] is not None
    kpis = summary["kpis"]
    assert kpis["operations_failed"] == 0
    assert kpis["operation_s"] == pytest.approx(
        sum(w["end_s"] - w["start_s"] for w in windows.values())
    )
    assert kpis["operation_errors"] == sum(w["errors"] for w in windows.values())
    assert "fault_errors" not in kpis  # no fault ran: operations have KPIs of their own
    # every acknowledged write reads back at QUORUM after the operations
    acknowledged = summary["engine"]["total"]["count"]
    assert acknowledged > 0
    assert (kpis["verified_writes"], kpis["lost_writes"]) == (acknowledged, 0)
    print(
        {
            kind: {
                k: w[k]
                for k in (
                    "start_s",
                    "end_s",
                    "errors",
                    "errors_by_kind",
                    "op_rate",
                    "before_op_rate",
                    "before_p99_ms",
                    "p99_ms",
                    "worst_p99_ms",
                    "recovery_s",
                )
            }
            for kind, w in windows.items()
        }
    )
