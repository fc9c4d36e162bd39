"""A small vector workload the tests without Cassandra share: a profile with an ANN and a
filtered ANN query over ``vector<float, 8>``, and its dataset of 100 clustered vectors
(10 queries, ground truth 5 deep) written beside it as s_*.fvecs/ivecs and p.yaml."""

from __future__ import annotations

from pathlib import Path

from casslab.load.vectors.synthetic import clustered
from casslab.load.vectors.texmex import write_fvecs, write_ivecs

PROFILE = """
keyspace: kv
table: t
table_definition: |
  CREATE TABLE t (id bigint PRIMARY KEY, c int, v vector<float, 8>)
extra_definitions:
  - CREATE CUSTOM INDEX ON t (v) USING 'StorageAttachedIndex'
queries:
  ann:
    cql: SELECT id FROM t ORDER BY v ANN OF ? LIMIT 5
  filtered:
    cql: SELECT id FROM t WHERE c = ? ORDER BY v ANN OF ? LIMIT 5
vectors:
  column: v
  dataset: s_base.fvecs
"""


def write_small_vectors(folder: Path) -> Path:
    """The dataset and ``p.yaml`` (:data:`PROFILE`) in ``folder``; returns ``folder``."""
    data = clustered(count=100, dimension=8, queries=10, depth=5)
    write_fvecs(folder / "s_base.fvecs", data.base)
    write_fvecs(folder / "s_query.fvecs", data.queries)
    write_ivecs(folder / "s_groundtruth.ivecs", data.neighbors)
    (folder / "p.yaml").write_text(PROFILE)
    return folder
