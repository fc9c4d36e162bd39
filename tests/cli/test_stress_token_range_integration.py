"""A profile's token range query through a real node: `casslab stress user` writes 2,000
rows, then one walk over the whole token ring (no wrap, each range split in three, pages of
300 rows, four threads) reads every row exactly once with no error."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster import LocalCluster
from casslab.engine_contract.engine_records import SummaryRecord
from cli_entry import NEEDS_ENGINE
from cli_entry import casslab as run_casslab
from shared_clusters import SHARED_NODE, emptied

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

PARTITIONS = 1000
ROWS = 2 * PARTITIONS  # two clustering rows per partition
PROFILE = """
keyspace: k32ranges
keyspace_definition: |
  CREATE KEYSPACE k32ranges WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: wide
table_definition: |
  CREATE TABLE wide (k bigint, c int, v text, PRIMARY KEY (k, c))
columnspec:
  - name: c
    cluster: fixed(2)
token_range_queries:
  all_rows:
    columns: '*'
    page_size: 300
"""


@pytest.fixture(scope="module")
def cluster(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


@pytest.fixture(scope="module")
def three(shared_three: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_three)


def stress(cwd: Path, *args: str, node: str = SHARED_NODE) -> SummaryRecord:
    done: subprocess.CompletedProcess[str] = run_casslab(
        None, "stress", "user", *args, "-node", node, "--json", timeout_s=120, cwd=cwd
    )
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    [summary] = [SummaryRecord.model_validate(r) for r in records if r["type"] == "summary"]
    return summary


def walk_the_ring(cluster: LocalCluster, tmp_path: Path) -> int:
    """Write the rows, then one walk over the ring must read each once, with no error,
    in one operation per piece: the ring's ranges (from each token to the next, the
    wrapping one cut at the ring's ends, -2^63 and 2^63-1), each in three."""
    node = cluster.nodes[0].address
    (tmp_path / "ranges.yaml").write_text(PROFILE)
    common = ("profile=ranges.yaml", "no-warmup", "cl=ONE")
    write = stress(
        tmp_path,
        *common,
        "ops(insert=1)",
        f"n={PARTITIONS}",
        "-pop",
        f"seq=1..{PARTITIONS}",
        node=node,
    )
    assert (write.total.errors, write.total.rows) == (0, ROWS)
    walk = stress(
        tmp_path,
        *common,
        "ops(all_rows=1)",
        "n=1000000",  # a bound the walk never reaches: the ring, read once, ends the run
        "-rate",
        "threads=4",
        "-tokenrange",
        "split-factor=3",
        node=node,
    )
    scan = walk.ops["all_rows"]
    assert scan.errors == 0, scan
    assert (scan.rows, scan.partitions) == (ROWS, PARTITIONS)
    session = cluster.session(node=1)  # both tables of one node
    rows = [*session.execute("SELECT tokens FROM system.local")]
    rows += [*session.execute("SELECT tokens FROM system.peers")]
    tokens = {int(t) for row in rows for t in row.tokens}
    ranges = len(tokens) + 1 - len(tokens & {-(2**63), 2**63 - 1})
    assert scan.count == 3 * ranges, (scan.count, sorted(tokens))
    return scan.count


def test_one_walk_over_the_ring_reads_every_row_once(cluster: LocalCluster, tmp_path: Path) -> None:
    walk_the_ring(cluster, tmp_path)


def test_the_walk_covers_every_node_of_three(three: LocalCluster, tmp_path: Path) -> None:
    """Three nodes: the other nodes' tokens come from system.peers, the ring has three
    ranges, each owned by one node (replication factor 1)."""
    walk_the_ring(three, tmp_path)
