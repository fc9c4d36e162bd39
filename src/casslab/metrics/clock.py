"""A node's clock against casslab's, NTP style: a short burst of queries pinned to the
node, each returning Cassandra's own notion of now on that node
(``toUnixTimestamp(now())``, from the same clock as its server-side write timestamps).

For each query, ``t0`` and ``t1`` are casslab's clock before it was sent and after its
answer came, ``server`` the node's time in the answer; its delay is ``t1 - t0`` and its
offset ``server - (t0 + t1) / 2`` (the node's clock minus casslab's, assuming the request
and the answer took as long). The burst's estimate is the query with the smallest delay:
the one least disturbed by queueing. The node's time has millisecond resolution, so an
offset is known to about +-(delay / 2 + 0.5) ms.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from casslab.record import Record

Q_NOW = "SELECT toUnixTimestamp(now()) AS node_ms FROM system.local"
BURST = 3


class Exchange(NamedTuple):
    """One query: casslab's time before (``t0``) and after (``t1``), the node's time (ms
    since the epoch, all three)."""

    t0: float
    server: float
    t1: float


class ClockReading(Record):
    """A node's clock offset against casslab's and the delay of the probe that measured
    it, in ms (the best of a burst)."""

    offset_ms: float
    delay_ms: float


def estimate(exchanges: Sequence[Exchange]) -> ClockReading:
    """The NTP estimate of a burst: the offset of its quickest exchange."""
    if not exchanges:
        raise ValueError("a clock estimate needs at least one exchange")
    best = min(exchanges, key=lambda e: e.t1 - e.t0)
    return ClockReading(offset_ms=best.server - (best.t0 + best.t1) / 2, delay_ms=best.t1 - best.t0)


def read_clock(session: Any, burst: int = BURST) -> ClockReading:
    """The node's offset, from ``burst`` queries through ``session`` (pinned to it)."""
    exchanges = []
    for _ in range(burst):
        t0 = time.time() * 1000
        row = session.execute(Q_NOW).one()
        t1 = time.time() * 1000
        exchanges.append(Exchange(t0, float(row.node_ms), t1))
    return estimate(exchanges)
