"""A node's clock against casslab's, NTP style: a short burst of queries pinned to the
node, each returning Cassandra's own notion of now on that node
(``toUnixTimestamp(now())``, from the same clock as its server-side write timestamps).

For each query, ``t0`` and ``t1`` are casslab's clock before it was sent and after its
answer came, ``server`` the node's time in the answer; its delay is ``t1 - t0`` and its
offset ``server - (t0 + t1) / 2`` (the node's clock minus casslab's, assuming the request
and the answer took as long). The burst's estimate is the query with the smallest delay:
the one least disturbed by queueing. The node's time has millisecond resolution, so an
offset is known to about +-(delay / 2 + 0.5) ms.

A burst stops early at an exchange as quick as it can get: within ``QUICK_MS`` (1 ms), or
(:class:`ClockProbe`, the recorder's, which reads a node every second) within
``FLOOR_FACTOR`` of the quickest exchange it has seen with that node. More exchanges could
only find one a fraction of a millisecond less queued; stopping keeps the per-second probe
cheap (``bench/metrics_overhead.py`` prints its CPU and the queries a reading takes).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from casslab.record import Record

Q_NOW = "SELECT toUnixTimestamp(now()) AS node_ms FROM system.local"
BURST = 3
QUICK_MS = 1.0  # an exchange this quick ends the burst: its offset is good to ~1 ms
FLOOR_FACTOR = 1.5  # an exchange within this factor of the quickest seen ends the burst


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


def read_clock(session: Any, burst: int = BURST, quick_ms: float = QUICK_MS) -> ClockReading:
    """The node's offset, from at most ``burst`` queries through ``session`` (pinned to
    it): the burst ends at the first exchange of delay at most ``quick_ms``."""
    exchanges = []
    for _ in range(burst):
        t0 = time.time() * 1000
        row = session.execute(Q_NOW).one()
        t1 = time.time() * 1000
        exchanges.append(Exchange(t0, float(row.node_ms), t1))
        if t1 - t0 <= quick_ms:
            break
    return estimate(exchanges)


class ClockProbe:
    """Reads one node's clock, reading after reading: a burst ends at an exchange within
    ``FLOOR_FACTOR`` of the quickest this probe has seen (the path's floor)."""

    def __init__(self, burst: int = BURST) -> None:
        self.burst = burst
        self.floor_ms: float | None = None

    def quick_ms(self) -> float:
        """The delay that ends a burst now."""
        if self.floor_ms is None:
            return QUICK_MS
        return max(QUICK_MS, self.floor_ms * FLOOR_FACTOR)

    def read(self, session: Any) -> ClockReading:
        """One reading through ``session`` (pinned to the node)."""
        reading = read_clock(session, self.burst, self.quick_ms())
        floor = self.floor_ms
        self.floor_ms = reading.delay_ms if floor is None else min(floor, reading.delay_ms)
        return reading
