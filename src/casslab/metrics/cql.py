"""CQL sampler: Cassandra's own figures from the ``system_views`` virtual tables.

Works for any cluster reachable over CQL (no JMX needed). One driver connection per node,
pinned to that node by a white-list policy, because virtual tables answer for the node that
coordinates the query.

Each sampling instant reads small virtual tables only (``thread_pools``, the coordinator
latency tables, ``caches``, ``tombstones_per_read`` and ``rows_per_read``; ``sstable_tasks``
when the CompactionExecutor is active; ``pending_hints`` every ``slow_every`` instants).
Every pool's row becomes per-stage figures and the rest Cassandra's own view of itself
(:mod:`casslab.metrics.server_rows`).

With ``access`` it logs in as the cluster's user and verifies its TLS certificates (an
external cluster). With ``jmx_fallbacks`` (a node without JMX access, e.g. a cluster
casslab did not start) it also stands in for the JMX sampler where CQL can: live disk
bytes from ``disk_usage`` (MiB resolution, every ``slow_every`` instants), compactions
pending from the CompactionExecutor queue, and bytes compacted / compaction count from
``system.compaction_history``. That table is real and grows, so it is read only every
``history_every_s`` seconds, bounded by ``compacted_at``, remembering the ids counted.

Every instant it also reads the node's clock against casslab's (:mod:`casslab.metrics.clock_offset`:
a burst of three ``now()`` queries, the NTP estimate): ``clock.offset_ms`` and
``clock.delay_ms``.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections import namedtuple
from collections.abc import Iterable, Sequence
from typing import Any

from cassandra import DriverException
from cassandra.cluster import (
    EXEC_PROFILE_DEFAULT,
    Cluster,
    ExecutionProfile,
    NoHostAvailable,
    Session,
)
from cassandra.connection import ConnectionException
from cassandra.policies import ConstantReconnectionPolicy, WhiteListRoundRobinPolicy

from casslab.cqlaccess import CqlAccess, driver_options
from casslab.metrics.clock_offset import ClockProbe
from casslab.metrics.jmx_mbeans import SYSTEM_KEYSPACES
from casslab.metrics.metric_entry import member_metric
from casslab.metrics.rates import CounterTracker
from casslab.metrics.server_rows import (
    Q_CACHES,
    Q_ROWS,
    Q_TOMBSTONES,
    STAGE_COMPLETED_RATE,
    CacheCounts,
    cache_counts,
    cache_hit_pcts,
    per_read_figures,
    stage_figures,
)
from casslab.metrics.source import Sample, SourceUnavailableError

log = logging.getLogger(__name__)

_DRIVER_ERRORS = (DriverException, NoHostAvailable, ConnectionException, OSError)

Q_THREAD_POOLS = (
    "SELECT name, pending_tasks, active_tasks, completed_tasks, blocked_tasks, "
    "blocked_tasks_all_time FROM system_views.thread_pools"
)
Q_READS = "SELECT keyspace_name, count FROM system_views.coordinator_read_latency"
Q_WRITES = "SELECT keyspace_name, count FROM system_views.coordinator_write_latency"
Q_SSTABLE_TASKS = "SELECT kind FROM system_views.sstable_tasks"
Q_HINTS = "SELECT files FROM system_views.pending_hints"
Q_DISK = "SELECT keyspace_name, mebibytes FROM system_views.disk_usage"
Q_HISTORY = (
    "SELECT id, keyspace_name, bytes_in, compacted_at FROM system.compaction_history "
    "WHERE compacted_at > %s ALLOW FILTERING"
)

MIB = 1 << 20

_ROW_TYPES: dict[tuple[str, ...], Any] = {}


def named_rows(colnames: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[Any]:
    """A driver row factory: rows as named tuples of one class per column list, made once.

    The driver's own ``named_tuple_factory`` makes a new class for every result, a
    quarter of a millisecond each time: most of what a sampling instant costs here."""
    key = tuple(colnames)
    row_type = _ROW_TYPES.get(key)
    if row_type is None:
        row_type = _ROW_TYPES[key] = namedtuple("Row", key, rename=True)
    return [row_type(*row) for row in rows]


def user_sum(rows: Iterable[Any], column: str) -> float:
    """Sum of ``column`` over rows whose keyspace_name is not a system keyspace."""
    return float(
        sum(getattr(r, column) or 0 for r in rows if r.keyspace_name not in SYSTEM_KEYSPACES)
    )


def thread_pool_figures(rows: Iterable[Any], *, with_pending: bool = False) -> dict[str, float]:
    """Catalogue figures from ``system_views.thread_pools`` rows; ``with_pending`` adds the
    CompactionExecutor queue as compactions pending (the stand-in when JMX is out of reach)."""
    out: dict[str, float] = {}
    for r in rows:
        if r.name == "CompactionExecutor":
            out["cassandra.compactions_completed"] = float(r.completed_tasks)
            if with_pending:
                out["cassandra.compactions_pending"] = float(r.pending_tasks)
        elif r.name == "MemtablePostFlush":
            out["cassandra.memtable_flushes"] = float(r.completed_tasks)
    return out


def running_compactions(kinds: Iterable[str]) -> int:
    """Number of sstable_tasks rows that are compactions of any sort."""
    return sum(1 for k in kinds if "compaction" in k.lower())


class CqlSource:
    """Samples node ``address`` over CQL, recording rows under ``label``."""

    def __init__(
        self,
        label: str,
        address: str,
        port: int = 9042,
        *,
        timeout_s: float = 3.0,
        slow_every: int = 5,
        jmx_fallbacks: bool = False,
        history_every_s: float = 30.0,
        reconnect_every_s: float = 5.0,
        protocol_version: int = 5,
        access: CqlAccess | None = None,
    ) -> None:
        """``protocol_version`` 5 suits Cassandra 4.0 and later (4 for 3.x). ``access``
        (a user and a CA) is read now: an unset password variable is a ConfigError."""
        self._label = label
        self._address = address
        self._port = port
        self._timeout_s = timeout_s
        self._slow_every = max(1, slow_every)
        self._fallbacks = jmx_fallbacks
        self._history_every_s = history_every_s
        self._reconnect_every_s = reconnect_every_s
        self._protocol_version = protocol_version
        self._driver_options = driver_options(access)
        self._cluster: Cluster | None = None
        self._session: Session | None = None
        self._last_connect_try = -1e9
        self._ticks = 0
        self._rates = CounterTracker()
        self._history_since = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        self._history_seen: set[Any] = set()
        self._history_bytes = 0.0
        self._history_last = -1e9
        self._clock = ClockProbe()  # the node's clock offset, NTP style
        self._caches: CacheCounts = {}

    @property
    def name(self) -> str:
        return "cql"

    @property
    def node(self) -> str:
        return self._label

    def _connect(self) -> Session:
        if self._session is not None:
            return self._session
        mono = time.monotonic()
        if mono - self._last_connect_try < self._reconnect_every_s:
            raise SourceUnavailableError(
                f"CQL to {self._address}:{self._port}: not connected (retrying every "
                f"{self._reconnect_every_s:.0f} s)"
            )
        self._last_connect_try = mono
        profile = ExecutionProfile(
            load_balancing_policy=WhiteListRoundRobinPolicy([self._address]),
            request_timeout=self._timeout_s,
            row_factory=named_rows,
        )
        cluster = Cluster(
            contact_points=[self._address],
            port=self._port,
            execution_profiles={EXEC_PROFILE_DEFAULT: profile},
            connect_timeout=self._timeout_s,
            control_connection_timeout=self._timeout_s,
            schema_metadata_enabled=False,
            token_metadata_enabled=False,
            reconnection_policy=ConstantReconnectionPolicy(self._reconnect_every_s),
            idle_heartbeat_interval=0,
            protocol_version=self._protocol_version,
            **self._driver_options,
        )
        try:
            session = cluster.connect()
        except _DRIVER_ERRORS as e:
            cluster.shutdown()
            raise SourceUnavailableError(f"CQL connect to {self._address}:{self._port}: {e}") from e
        self._cluster, self._session = cluster, session
        return session

    def sample(self, now: float) -> list[Sample]:
        session = self._connect()
        self._ticks += 1
        slow = self._ticks % self._slow_every == 1 or self._slow_every == 1
        try:
            futures = {
                "pools": session.execute_async(Q_THREAD_POOLS),
                "reads": session.execute_async(Q_READS),
                "writes": session.execute_async(Q_WRITES),
                "caches": session.execute_async(Q_CACHES),
                "tombstones": session.execute_async(Q_TOMBSTONES),
                "rows": session.execute_async(Q_ROWS),
            }
            if slow:
                futures["hints"] = session.execute_async(Q_HINTS)
                if self._fallbacks:
                    futures["disk"] = session.execute_async(Q_DISK)
            res = {k: list(f.result()) for k, f in futures.items()}
            # sstable_tasks only when the compaction pool is busy: idle means none running
            busy = any(r.name == "CompactionExecutor" and r.active_tasks for r in res["pools"])
            res["tasks"] = list(session.execute(Q_SSTABLE_TASKS)) if busy else []
            history = self._read_history(session) if self._fallbacks else None
        except _DRIVER_ERRORS as e:
            raise SourceUnavailableError(f"CQL query to {self._address}: {e}") from e
        values = thread_pool_figures(res["pools"], with_pending=self._fallbacks)
        values.update(self._server_figures(res, now))
        values["cassandra.compactions_running"] = float(
            running_compactions(r.kind for r in res["tasks"])
        )
        for op, key in (("read", "reads"), ("write", "writes")):
            r = self._rates.update(op, user_sum(res[key], "count"), now)
            if r is not None:
                values[f"cassandra.{op}_requests_per_s"] = r
        if slow:
            values["cassandra.hints_pending"] = float(sum(r.files or 0 for r in res["hints"]))
        if "disk" in res:
            values["cassandra.live_disk_bytes"] = user_sum(res["disk"], "mebibytes") * MIB
        if history is not None:
            values.update(history)
        try:
            reading = self._clock.read(session)
        except _DRIVER_ERRORS as e:
            raise SourceUnavailableError(f"CQL clock probe of {self._address}: {e}") from e
        values["clock.offset_ms"] = reading.offset_ms
        values["clock.delay_ms"] = reading.delay_ms
        return [Sample(now, self._label, k, v) for k, v in values.items()]

    def _server_figures(self, res: dict[str, list[Any]], now: float) -> dict[str, float]:
        """Every stage's tasks, the caches' hit rates and the per-read histograms."""
        values = stage_figures(res["pools"])
        for r in res["pools"]:
            rate = self._rates.update(f"pool:{r.name}", float(r.completed_tasks), now)
            if rate is not None:
                values[member_metric(STAGE_COMPLETED_RATE, r.name)] = rate
        caches = cache_counts(res["caches"])
        values.update(cache_hit_pcts(self._caches, caches))
        self._caches = caches
        values.update(per_read_figures(res["tombstones"], res["rows"]))
        return values

    def _read_history(self, session: Session) -> dict[str, float] | None:
        """Bytes compacted and compactions since the recorder started, from
        compaction_history, at most every ``history_every_s``."""
        mono = time.monotonic()
        if mono - self._history_last < self._history_every_s:
            return None
        self._history_last = mono
        rows = session.execute(Q_HISTORY, (self._history_since,))
        newest = self._history_since
        for r in rows:
            if r.id in self._history_seen or r.keyspace_name in SYSTEM_KEYSPACES:
                continue
            self._history_seen.add(r.id)
            self._history_bytes += float(r.bytes_in or 0)
            if r.compacted_at is not None and r.compacted_at > newest:
                newest = r.compacted_at
        # Keep a minute of overlap: rows can land slightly out of order.
        self._history_since = max(self._history_since, newest - dt.timedelta(seconds=60))
        return {
            "cassandra.bytes_compacted": self._history_bytes,
            "cassandra.compaction_count_total": float(len(self._history_seen)),
        }

    def close(self) -> None:
        if self._cluster is not None:
            self._cluster.shutdown()
        self._cluster, self._session = None, None
