"""Hints written and replayed during a trial's faults.

Each node counts, over JMX, the hints it wrote as a coordinator for replicas that did not
answer (``org.apache.cassandra.metrics:type=Storage,name=TotalHints``) and the hints it
delivered once their replica was back (``type=HintsService,name=HintsSucceeded``, with
``HintsFailed`` and ``HintsTimedOut``: Cassandra's ``StorageMetrics`` and
``HintsServiceMetrics``). :class:`HintTally` reads them on every node when the timeline
starts and when it stops; a node about to be killed or stopped is read just before (its
counters start again from zero with its JVM), so what it counted before is kept.

Replay comes after the node is back and seen up (each node's dispatcher looks every 10 s),
so at the stop the tally waits, at most :data:`REPLAY_WAIT_S`, until no node lists hint
files pending for a node that is up (``system_views.pending_hints``, status ``UP``) and
the hints delivered reach the hints written; ``finished`` says whether they did in time.
A node that left the cluster during the trial (a decommission) is neither read nor waited
for at the stop: what it counted until it was stopped (its checkpoint) stays in the sums.

``replayed`` counts deliveries that succeeded, as Cassandra does: a page of hints whose
delivery timed out in part (``timed_out``) is sent again whole, and its hints that had
arrived count again, so ``replayed`` can exceed ``written`` (seen on a 2-core machine:
6,332 replayed of 3,881 written, with 750 timed out).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any

from cassandra import DriverException
from cassandra.cluster import NoHostAvailable
from cassandra.connection import ConnectionException
from pydantic import Field

from casslab.cluster import Cluster
from casslab.cluster.capabilities import node_hosts_of
from casslab.errors import CasslabError
from casslab.faults.detection import jmx_client
from casslab.metrics.jmx import JmxClient
from casslab.metrics.jmx_mbeans import JmxValue
from casslab.metrics.source import SourceUnavailableError
from casslab.record import Record

log = logging.getLogger(__name__)

REPLAY_WAIT_S = 20.0
POLL_S = 1.0
_M = "org.apache.cassandra.metrics"
QUERY = (
    (f"{_M}:type=Storage,name=TotalHints", "Count"),
    (f"{_M}:type=HintsService,name=HintsSucceeded", "Count"),
    (f"{_M}:type=HintsService,name=HintsFailed", "Count"),
    (f"{_M}:type=HintsService,name=HintsTimedOut", "Count"),
)
PENDING = "SELECT status, files FROM system_views.pending_hints"
DRIVER_ERRORS = (DriverException, NoHostAvailable, ConnectionException, OSError)


class HintCounts(Record):
    """One node's hint counters (or their change over a span)."""

    written: int = 0  # hints it wrote as a coordinator
    replayed: int = 0  # hints it delivered (HintsSucceeded)
    failed: int = 0  # deliveries that failed (retried later)
    timed_out: int = 0  # deliveries that timed out

    def plus(self, other: HintCounts) -> HintCounts:
        return HintCounts(
            written=self.written + other.written,
            replayed=self.replayed + other.replayed,
            failed=self.failed + other.failed,
            timed_out=self.timed_out + other.timed_out,
        )

    def since(self, before: HintCounts) -> HintCounts:
        """The change from ``before``; counters that went back (the JVM restarted
        unseen) count from zero."""
        pairs = {
            name: (getattr(self, name), getattr(before, name))
            for name in ("written", "replayed", "failed", "timed_out")
        }
        if any(now < then for now, then in pairs.values()):
            return self
        return HintCounts(**{name: now - then for name, (now, then) in pairs.items()})


class NodeHints(HintCounts):
    node: int


class HintsBlock(Record):
    """``faults.json``'s ``hints``: sums over the nodes, each node's, and the replay wait."""

    written: int
    replayed: int
    failed: int
    timed_out: int
    nodes: list[NodeHints]
    finished: bool  # every node answered, every hint written was delivered, none pending
    waited_s: float  # how long the stop waited for the replay (at most REPLAY_WAIT_S)
    unread: list[int] = Field(
        default_factory=list
    )  # nodes whose counters could not be read (left out of the sums)


_FIELDS = {
    ("Storage", "TotalHints"): "written",
    ("HintsService", "HintsSucceeded"): "replayed",
    ("HintsService", "HintsFailed"): "failed",
    ("HintsService", "HintsTimedOut"): "timed_out",
}


def counts_of(values: Iterable[JmxValue]) -> HintCounts:
    """One node's counters from its answer to :data:`QUERY`."""
    found: dict[str, int] = {}
    for value in values:
        parts = dict(p.partition("=")[::2] for p in value.object_name.split(":", 1)[-1].split(","))
        field = _FIELDS.get((parts.get("type", ""), parts.get("name", "")))
        if field is not None:
            found[field] = round(value.value)
    return HintCounts(**found)


def pending_for_up(rows: Iterable[Any]) -> int:
    """Hint files a node holds for nodes that are up (rows of :data:`PENDING`)."""
    return sum(int(row.files or 0) for row in rows if str(row.status).upper() == "UP")


def block(
    spans: dict[int, HintCounts], unread: Sequence[int], finished: bool, waited_s: float
) -> HintsBlock:
    """The ``hints`` block of the nodes' counted ``spans``."""
    total = HintCounts()
    for counts in spans.values():
        total = total.plus(counts)
    nodes = [NodeHints(node=n, **spans[n].model_dump()) for n in sorted(spans)]
    return HintsBlock(
        **total.model_dump(),
        nodes=nodes,
        finished=finished,
        waited_s=round(waited_s, 1),
        unread=sorted(unread),
    )


class HintTally:
    """The hint counters of every node of ``cluster`` over a timeline."""

    def __init__(self, cluster: Cluster) -> None:
        self._cluster = cluster
        self._numbers = [n.number for n in cluster.nodes]
        self._clients: dict[int, tuple[JmxClient, str, int, list[Any]]] = {}
        self._base: dict[int, HintCounts] = {}
        self._counted: dict[int, HintCounts] = {n: HintCounts() for n in self._numbers}
        self._unread: set[int] = set()
        self._checkpointed: set[int] = set()

    def _client(self, number: int) -> tuple[JmxClient, str, int]:
        if number not in self._clients:
            shared = next(iter(self._clients.values()), None)
            remote = node_hosts_of(self._cluster) is not None
            if shared is not None and not remote:  # one helper polls every local node
                node = self._cluster.node(number)
                self._clients[number] = (shared[0].acquire(), node.jmx_address, node.jmx_port, [])
            else:
                client, host, port, owned = jmx_client(self._cluster, number)
                self._clients[number] = (client.acquire(), host, port, owned)
        client, host, port, _ = self._clients[number]
        return client, host, port

    def _read(self, number: int) -> HintCounts | None:
        """Node ``number``'s counters (None: it did not answer twice; the first poll after
        a node's restart can fail on the helper's old connection to it)."""
        for _ in range(2):
            try:
                client, host, port = self._client(number)
                return counts_of(client.poll(host, port, QUERY))
            except (CasslabError, SourceUnavailableError) as error:
                log.debug("hint counters of node %d: %s", number, error)
        return None

    def start(self) -> None:
        """Read every node's counters (the timeline starts)."""
        for number in self._numbers:
            counts = self._read(number)
            if counts is None:
                self._unread.add(number)
            else:
                self._base[number] = counts

    def checkpoint(self, number: int) -> None:
        """Node ``number`` is about to be killed or stopped: keep what it counted so far."""
        if number not in self._base:
            return
        counts = self._read(number)
        if counts is not None:
            self._counted[number] = self._counted[number].plus(counts.since(self._base[number]))
            self._checkpointed.add(number)
        self._base[number] = HintCounts()  # its next JVM counts from zero

    def _members(self) -> list[int]:
        """The nodes counted from the start that are still in the cluster."""
        now = {n.number for n in self._cluster.nodes}
        return [n for n in self._numbers if n in now]

    def _spans(self) -> dict[int, HintCounts]:
        spans: dict[int, HintCounts] = {}
        members = self._members()
        for number in self._numbers:
            if number not in members:  # it left the cluster: what it counted before
                spans[number] = self._counted[number]
                if number in self._base and number not in self._checkpointed:
                    self._unread.add(number)  # it left unread: its counts are lost
                continue
            counts = self._read(number) if number in self._base else None
            if counts is None:
                self._unread.add(number)
                continue
            self._unread.discard(number)
            spans[number] = self._counted[number].plus(counts.since(self._base[number]))
        return spans

    def _pending(self) -> int | None:
        """Hint files pending for up nodes, over every node (None: a node did not say)."""
        total = 0
        for number in self._members():
            try:
                rows = self._cluster.session(node=number).execute(PENDING, timeout=5.0)
                total += pending_for_up(rows)
            except (*DRIVER_ERRORS, CasslabError) as error:
                log.debug("pending hints of node %d: %s", number, error)
                return None
        return total

    def stop(self, wait_s: float = REPLAY_WAIT_S) -> HintsBlock:
        """Every node's counts since :meth:`start`, after waiting (at most ``wait_s``) for
        the hints written to be replayed; closes the JMX helpers."""
        started = time.monotonic()
        try:
            while True:
                spans = self._spans()
                written = sum(s.written for s in spans.values())
                replayed = sum(s.replayed for s in spans.values())
                members = self._members()
                read = not any(n in self._base and n in members for n in self._unread)
                done = read and replayed >= written and self._pending() == 0
                waited = time.monotonic() - started
                if done or waited >= wait_s:
                    return block(spans, sorted(self._unread), done, waited)
                time.sleep(POLL_S)
        finally:
            self.close()

    def close(self) -> None:
        for client, _, _, owned in self._clients.values():
            client.close()
            for thing in owned:
                thing.close()
        self._clients = {}
