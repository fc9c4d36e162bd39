"""What a skewed clock does to last-write-wins: for each key, write ``v1`` through a node
with a good clock, wait a gap, write ``v2`` through the skewed node, and read the key at
ALL. With server-side timestamps (the coordinator's clock stamps the write) ``v2`` loses
when the skewed node's clock is behind by more than the gap: an acknowledged update that
silently disappears. With client-side timestamps (the driver's clock) nothing is lost.

:func:`expected_lost` says what last-write-wins predicts; :func:`run_case` measures it on
a real cluster and gives the lost fraction with its Wilson interval.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import Field

from casslab.analysis.proportion import Proportion, wilson
from casslab.cluster import clock
from casslab.cluster.backend import Cluster
from casslab.errors import ConfigError
from casslab.record import Record

KEYSPACE = "casslab_lww"
SETTLE_S = 0.3  # a node reads its clock file every 100 ms


class LwwCase(Record):
    """One cell of the study: the skewed node's offset, the gap between the two writes,
    and whose clock stamps the writes."""

    skew_ms: float
    gap_ms: float = Field(ge=0)
    client_timestamps: bool = False


class LwwResult(Record):
    case: LwwCase
    lost: Proportion  # keys whose acknowledged v2 was lost (v1 read back at ALL)
    expected_lost: bool


def expected_lost(case: LwwCase) -> bool:
    """Last-write-wins keeps the larger timestamp: v2 (stamped skew + gap later than v1 by
    a server) loses when skew + gap < 0; with client timestamps it never loses."""
    return not case.client_timestamps and case.skew_ms + case.gap_ms < 0


def _prepare(session: Any, replicas: int) -> None:
    session.execute(
        f"CREATE KEYSPACE IF NOT EXISTS {KEYSPACE} WITH replication = "
        f"{{'class': 'SimpleStrategy', 'replication_factor': {replicas}}}"
    )
    session.execute(f"CREATE TABLE IF NOT EXISTS {KEYSPACE}.kv (k int PRIMARY KEY, v text)")
    session.execute(f"TRUNCATE {KEYSPACE}.kv")


def run_case(
    cluster: Cluster, case: LwwCase, *, keys: int = 100, good: int = 1, skewed: int = 2
) -> LwwResult:
    """Measure ``case`` on ``keys`` keys: node ``good`` writes v1, node ``skewed`` (its
    clock stepped to ``case.skew_ms`` for the run, then set back) writes v2."""
    from cassandra import ConsistencyLevel
    from cassandra.query import SimpleStatement

    if good == skewed:
        raise ConfigError(f"the skewed node ({skewed}) must not be the good one ({good})")
    first, second = cluster.node(good), cluster.node(skewed)
    if not clock.supports_clock(cluster.state.lib_dir):
        raise clock.unsupported(cluster.state.cassandra_version)
    before = clock.read_skew(second)
    clock.set_offset(second, case.skew_ms)
    try:
        time.sleep(SETTLE_S)
        writer, other = cluster.session(node=first.number), cluster.session(node=second.number)
        for session in (writer, other):
            session.use_client_timestamp = case.client_timestamps
        _prepare(writer, min(3, len(cluster.nodes)))
        write = SimpleStatement(
            f"INSERT INTO {KEYSPACE}.kv (k, v) VALUES (%s, %s)",
            consistency_level=ConsistencyLevel.QUORUM,
        )
        for key in range(keys):
            writer.execute(write, (key, "v1"))
            time.sleep(case.gap_ms / 1000)
            other.execute(write, (key, "v2"))
        read = SimpleStatement(
            f"SELECT k, v FROM {KEYSPACE}.kv", consistency_level=ConsistencyLevel.ALL
        )
        lost = sum(1 for row in writer.execute(read) if row.v == "v1")
    finally:
        clock.write_skew(second, before)
        cluster.close_sessions()
    return LwwResult(case=case, lost=wilson(lost, keys), expected_lost=expected_lost(case))
