"""`--data-seed` against one real node: the values a read validates depend on the data seed
only, so a read with another `--seed` validates a population written before, and a read with
another `--data-seed` does not. On the shared node, emptied before and after.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from casslab.cluster import LocalCluster
from casslab.engine_contract.engine_records import SummaryRecord
from cli_entry import NEEDS_ENGINE
from cli_entry import casslab as run_casslab
from shared_clusters import SHARED_NODE, emptied

pytestmark = [
    pytest.mark.integration,
    *NEEDS_ENGINE,
]

NODE = SHARED_NODE
COMMON = ("-rate", "threads=8", "-node", NODE)


@pytest.fixture(scope="module")
def cluster(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


def stress(*args: str) -> tuple[SummaryRecord, subprocess.CompletedProcess[str]]:
    """``casslab stress ARGS --json``: its summary record and the finished process."""
    done = run_casslab(None, "stress", *args, *COMMON, "--json", timeout_s=180, columns=250)
    assert done.returncode == 0, f"casslab stress {' '.join(args)}\n{done.stdout}\n{done.stderr}"
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    [summary] = [SummaryRecord.model_validate(r) for r in records if r["type"] == "summary"]
    return summary, done


def test_a_read_validates_the_data_of_its_data_seed_whatever_its_seed(
    cluster: LocalCluster,
) -> None:
    written, _ = stress("write", "n=2000")
    assert (written.total.count, written.total.errors) == (2000, 0)

    # Another operation sequence over the same population: every value validates.
    same_data, _ = stress("read", "n=2000", "--seed", "5")
    read = same_data.ops["read"]
    assert (read.count, read.errors, read.not_found, read.mismatches) == (2000, 0, 0, 0)

    # Another data seed expects other values than the write stored.
    other_data, done = stress("read", "n=2000", "--data-seed", "7")
    read = other_data.ops["read"]
    assert (read.count, read.errors, read.not_found) == (2000, 0, 0)
    assert read.mismatches > 0
    assert "was the data written with data seed 7 and these generators?" in done.stderr


PROFILE = """
keyspace: k210seed
keyspace_definition: |
  CREATE KEYSPACE k210seed WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: events
table_definition: |
  CREATE TABLE events (src text, seq bigint, body blob, PRIMARY KEY (src, seq))
columnspec:
  - name: src
    size: fixed(12)
  - name: seq
    cluster: uniform(1..20)
  - name: body
    size: fixed(50)
insert:
  partitions: fixed(1)
  select: fixed(1)/1
  batchtype: UNLOGGED
queries:
  row:
    cql: select * from events where src = ? and seq = ?
"""


def test_partition_rows_are_data_of_the_data_seed(
    cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Partitions of 1..20 rows, all written: a query under another `--seed` finds every row
    it picks; under another `--data-seed` it looks for rows of other partition shapes."""
    folder = tmp_path_factory.mktemp("k210-profile")
    profile = folder / "events.yaml"
    profile.write_text(PROFILE)
    user = ("user", f"profile={profile}")
    written, _ = stress(*user, "ops(insert=1)", "n=200", "-pop", "seq=1..200")
    assert (written.total.count, written.total.errors) == (200, 0)
    assert written.total.rows > 200  # partitions of several rows

    reads = (*user, "ops(row=1)", "n=400", "-pop", "dist=UNIFORM(1..200)")
    same_data, _ = stress(*reads, "--seed", "5")
    row = same_data.ops["row"]
    assert (row.count, row.errors, row.not_found) == (400, 0, 0)

    other_data, _ = stress(*reads, "--seed", "5", "--data-seed", "7")
    assert other_data.ops["row"].not_found > 0
