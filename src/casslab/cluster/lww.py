"""What a skewed clock does to last-write-wins: for each key, write ``v1`` through a node
with a good clock, wait a gap, write ``v2`` through the skewed node, and read the key at
ALL. With server-side timestamps (the coordinator's clock stamps the write) ``v2`` loses
when the skewed node's clock is behind by more than the gap: an acknowledged update that
silently disappears. With client-side timestamps (the driver's clock) nothing is lost.

A clock behind by more than the write timeout does something else: the other replicas
drop the skewed coordinator's mutations as expired on arrival (Cassandra ages an
internode message by the sender's clock), so its writes time out instead.
:func:`expired_messages` counts those drops (``system_views.internode_inbound``).

:func:`expected_lost` says what last-write-wins predicts; :func:`probe` measures it on a
cluster whose clocks are already set (an experiment's ``cluster.clock``), :func:`run_case`
steps the skewed node's clock for one case and sets it back (``casslab clock lww``).
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import Field

from casslab.analysis.proportion import Proportion, wilson
from casslab.cluster import clock_skew
from casslab.cluster.backend import Cluster
from casslab.errors import ConfigError
from casslab.record import Record

KEYSPACE = "casslab_lww"


class LwwCase(Record):
    """One cell of the study: the skewed node's offset, the gap between the two writes,
    and whose clock stamps the writes."""

    skew_ms: float
    gap_ms: float = Field(ge=0)
    client_timestamps: bool = False


class LwwOutcome(Record):
    """What the probe saw: ``lost`` counts, among the keys whose v2 write was
    acknowledged, those read back as v1; ``unacknowledged`` the v2 writes that failed
    (timed out or unavailable); ``expired`` the internode messages the nodes dropped as
    expired on arrival while it ran."""

    lost: Proportion | None  # None: no v2 write was acknowledged
    keys: int
    unacknowledged: int
    expired: int


class LwwResult(Record):
    case: LwwCase
    lost: Proportion | None  # keys whose acknowledged v2 was lost (v1 read back at ALL)
    unacknowledged: int = 0  # v2 writes that failed: not updates, so never "lost"
    expired: int = 0  # internode messages dropped as expired while the case ran
    expected_lost: bool


def expected_lost(case: LwwCase) -> bool:
    """Last-write-wins keeps the larger timestamp: v2 (stamped skew + gap later than v1 by
    a server) loses when skew + gap < 0; with client timestamps it never loses."""
    return not case.client_timestamps and case.skew_ms + case.gap_ms < 0


def expired_messages(cluster: Cluster) -> int:
    """Internode messages every node has dropped as expired on arrival since it started
    (``expired_count`` of ``system_views.internode_inbound``, summed over its peers and
    over the nodes; each node asked directly)."""
    total = 0
    for node in cluster.nodes:
        rows = cluster.session(node=node.number).execute(
            "SELECT expired_count FROM system_views.internode_inbound"
        )
        total += sum(int(row.expired_count or 0) for row in rows)
    return total


def _prepare(session: Any, replicas: int) -> None:
    session.execute(
        f"CREATE KEYSPACE IF NOT EXISTS {KEYSPACE} WITH replication = "
        f"{{'class': 'SimpleStrategy', 'replication_factor': {replicas}}}"
    )
    session.execute(f"CREATE TABLE IF NOT EXISTS {KEYSPACE}.kv (k int PRIMARY KEY, v text)")
    session.execute(f"TRUNCATE {KEYSPACE}.kv")


def _check_nodes(cluster: Cluster, good: int, skewed: int) -> None:
    if good == skewed:
        raise ConfigError(f"the skewed node ({skewed}) must not be the good one ({good})")
    cluster.node(good)
    cluster.node(skewed)


def probe(
    cluster: Cluster,
    *,
    gap_ms: float,
    client_timestamps: bool = False,
    keys: int = 100,
    good: int = 1,
    skewed: int = 2,
) -> LwwOutcome:
    """For ``keys`` keys: v1 through node ``good`` at QUORUM, ``gap_ms``, v2 through node
    ``skewed`` at QUORUM, then every key read at ALL (keyspace ``casslab_lww``, RF
    min(3, nodes), emptied first). The nodes' clocks are left as they are."""
    from cassandra import ConsistencyLevel, DriverException
    from cassandra.query import SimpleStatement

    _check_nodes(cluster, good, skewed)
    expired_before = expired_messages(cluster)
    try:
        writer = cluster.session(node=good)
        other = cluster.session(node=skewed)
        for session in (writer, other):
            session.use_client_timestamp = client_timestamps
        _prepare(writer, min(3, len(cluster.nodes)))
        write = SimpleStatement(
            f"INSERT INTO {KEYSPACE}.kv (k, v) VALUES (%s, %s)",
            consistency_level=ConsistencyLevel.QUORUM,
        )
        acknowledged: set[int] = set()
        for key in range(keys):
            writer.execute(write, (key, "v1"))
            time.sleep(gap_ms / 1000)
            try:
                other.execute(write, (key, "v2"))
            except DriverException:  # a timeout or an unavailable replica: not acknowledged
                continue
            acknowledged.add(key)
        read = SimpleStatement(
            f"SELECT k, v FROM {KEYSPACE}.kv", consistency_level=ConsistencyLevel.ALL
        )
        lost = sum(1 for row in writer.execute(read) if row.k in acknowledged and row.v == "v1")
        expired = expired_messages(cluster) - expired_before
    finally:
        cluster.close_sessions()
    return LwwOutcome(
        lost=wilson(lost, len(acknowledged)) if acknowledged else None,
        keys=keys,
        unacknowledged=keys - len(acknowledged),
        expired=max(0, expired),
    )


def run_case(
    cluster: Cluster, case: LwwCase, *, keys: int = 100, good: int = 1, skewed: int = 2
) -> LwwResult:
    """Measure ``case`` on ``keys`` keys: node ``good`` writes v1, node ``skewed`` (its
    clock stepped to ``case.skew_ms`` for the run, then set back) writes v2."""
    _check_nodes(cluster, good, skewed)
    clock_skew.require_injectable(cluster.state)
    second = cluster.node(skewed)
    before = clock_skew.read_skew(second)
    clock_skew.set_offset(second, case.skew_ms)
    try:
        time.sleep(clock_skew.SETTLE_S)
        outcome = probe(
            cluster,
            gap_ms=case.gap_ms,
            client_timestamps=case.client_timestamps,
            keys=keys,
            good=good,
            skewed=skewed,
        )
    finally:
        clock_skew.write_skew(second, before)
    return LwwResult(
        case=case,
        lost=outcome.lost,
        unacknowledged=outcome.unacknowledged,
        expired=outcome.expired,
        expected_lost=expected_lost(case),
    )
