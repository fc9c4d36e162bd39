"""Every named workload of the catalog (vector search aside, which its own tests run) on a
real Cassandra 5.0 node: each profile is loaded with its inserts, then all of them run
together for 10 s, every operation of every workload's documented mix, with 0 errors and 0
mismatches among the validated reads. One node from the session's shared ones."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster import LocalCluster
from casslab.engine_contract.engine_records import SummaryRecord
from casslab.workloads.named import catalog
from cli_entry import NEEDS_ENGINE
from cli_entry import casslab as run_casslab
from shared_clusters import SHARED_NODE, emptied

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

KEYS = 500
WORKLOADS = [w for w in catalog() if w.name != "vector"]


@pytest.fixture(scope="module")
def node(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


def stress(cwd: Path, *args: str) -> SummaryRecord:
    done = run_casslab(None, "stress", "user", *args, "-node", SHARED_NODE, "--json", cwd=cwd)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    [summary] = [SummaryRecord.model_validate(r) for r in records if r["type"] == "summary"]
    return summary


def mix(name: str, run_command: str) -> list[str]:
    """The operations of a workload's documented run, named ``NAME.OP``."""
    [ops] = [w for w in shlex.split(run_command) if w.startswith("ops(")]
    return [f"{name}.{item.partition('=')[0]}" for item in ops[4:-1].split(",")]


def test_every_named_workload_runs_without_errors(node: LocalCluster, tmp_path: Path) -> None:
    profiles = "profile=" + ",".join(f"@{w.name}" for w in WORKLOADS)
    for workload in WORKLOADS:
        loaded = stress(
            tmp_path,
            f"profile=@{workload.name}",
            "ops(insert=1)",
            f"n={KEYS}",
            "-rate",
            "threads=8",
        )
        assert loaded.total.errors == 0, workload.name
    ops = [op for w in WORKLOADS for op in mix(w.name, w.run_command)]
    summary = stress(
        tmp_path,
        profiles,
        f"ops({','.join(f'{op}=1' for op in ops)})",
        "duration=10s",
        "-pop",
        f"dist=uniform(1..{KEYS})",
        "-rate",
        "threads=8",
    )
    assert set(summary.ops) == set(ops)
    failed = {
        n: (s.errors, s.mismatches) for n, s in summary.ops.items() if s.errors or s.mismatches
    }
    assert failed == {}
    assert all(s.count > 0 for s in summary.ops.values()), summary.ops
    session = node.session()
    indexes = {
        (row.keyspace_name, row.options["target"])
        for row in session.execute("SELECT keyspace_name, options FROM system_schema.indexes")
    }
    assert ("casslab_workloads", "price") in indexes  # SAI
    assert ("casslab_workloads", "category") in indexes  # SAI and the legacy index
