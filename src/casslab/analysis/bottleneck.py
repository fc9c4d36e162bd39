"""What limited a trial, with its evidence (pure): :func:`diagnose` reads one trial's
:class:`TrialEvidence` and names a :class:`Bottleneck` for every limit it finds, the most
severe first; none found is :attr:`Bottleneck.NONE`.

Thresholds (module constants, each a share of a capacity so that they hold on any host):

* **engine** -- the load engine used at least :data:`ENGINE_CPU_SHARE` of the cores it may
  use (its ``--engine-cpus``, its cgroup's quota, else the host's), or an open loop held
  at least :data:`IN_FLIGHT_SHARE` of its in-flight limit on average (Little's law:
  op rate x mean service time) while falling short of its target rate. Then the client is
  the bottleneck and the numbers measure it, not Cassandra: it comes first whatever else
  is found.
* **host CPU** -- the host's busy CPU at least :data:`HOST_CPU_SHARE` of its cores.
* **node CPU** -- an isolated node's own CPU limit (its cgroup's quota as its metrics
  recorded it, not the host's cores: :func:`casslab.analysis.bottleneck_evidence.node_cpu`):
  the node nearest its quota used at least :data:`NODE_CPU_SHARE` of it, or a
  node's cgroup was throttled by its quota in at least :data:`THROTTLED_PCT` % of the quota
  periods.
* **disk** -- iowait at least :data:`IOWAIT_PCT` % of CPU time, or the device busy at
  least :data:`DISK_UTIL_PCT` % of the time, or a request waiting :data:`DISK_AWAIT_MS` ms
  on average.
* **GC** -- stop-the-world pauses at least :data:`GC_PAUSE_SHARE` of each node's wall time.
* **compaction** -- pending compactions grew by at least :data:`COMPACTION_GROWTH` tasks
  over the window (the backlog falls behind).
* **stage queue** -- a thread-pool stage queued :data:`STAGE_PENDING` tasks or more on
  average, or blocked any task on its full queue.
* **network** -- a WAN link's round trip (twice its one-way delay) at least
  :data:`WAN_LATENCY_SHARE` of the mean response time, or the link's traffic at least
  :data:`LINK_RATE_SHARE` of its rate.

Each finding has a ``severity``: the observed value over its threshold (1.0 = just at it),
so that findings of different kinds can be ordered.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from casslab.record import Record

ENGINE_CPU_SHARE = 0.85
IN_FLIGHT_SHARE = 0.90
TARGET_SHORTFALL = 0.95  # an open loop below 95% of its target rate fell short
HOST_CPU_SHARE = 0.90
NODE_CPU_SHARE = 0.90
THROTTLED_PCT = 50.0
IOWAIT_PCT = 20.0
DISK_UTIL_PCT = 90.0
DISK_AWAIT_MS = 50.0
GC_PAUSE_SHARE = 0.05
COMPACTION_GROWTH = 5.0
STAGE_PENDING = 10.0
WAN_LATENCY_SHARE = 0.5
LINK_RATE_SHARE = 0.9


class Bottleneck(StrEnum):
    """What limited a trial."""

    ENGINE = "engine"  # the load engine itself: the client is the bottleneck
    HOST_CPU = "host_cpu"
    NODE_CPU = "node_cpu"  # a node's own CPU limit (its cgroup's quota)
    DISK = "disk"
    GC = "gc"
    COMPACTION = "compaction"
    STAGE_QUEUE = "stage_queue"
    NETWORK = "network"
    NONE = "none"


class TrialEvidence(Record):
    """What the diagnosis reads of one trial; None: not measured (that check is skipped).
    CPU figures are % of ONE core (200 = two cores busy)."""

    window_s: float = Field(gt=0)
    nodes: int = Field(default=1, ge=1)
    host_cores: float | None = None
    host_cpu_pct: float | None = None
    node_throttled_pct: float | None = None  # the most throttled node's quota periods, %
    node_cpus: float | None = None  # that node's CPU quota in CPUs; None: none recorded
    node_cpu_pct: float | None = None  # the cgroup CPU of the node nearest its quota
    engine_cores: float | None = None  # cores the engine may use
    engine_cpu_pct: float | None = None
    op_rate: float | None = None
    target_rate_per_s: float | None = None  # open loop only
    max_in_flight: int | None = None  # open loop only
    service_mean_ms: float | None = None
    response_mean_ms: float | None = None
    iowait_pct: float | None = None
    disk_util_pct: float | None = None
    disk_await_ms: float | None = None
    gc_pause_ms: float | None = None  # during the window, summed over nodes
    compactions_pending_growth: float | None = None  # summed over nodes
    stage_pending: dict[str, float] = Field(default_factory=dict)  # pool -> mean queue
    stage_blocked: dict[str, float] = Field(default_factory=dict)  # pool -> blocked tasks
    wan_delay_ms: float | None = None  # the largest one-way delay of a WAN link
    link_use_pct: float | None = None  # the busiest link's traffic, % of its rate


class Finding(Record):
    """One limit found: what, how far past its threshold, and the numbers that show it."""

    bottleneck: Bottleneck
    severity: float  # observed / threshold: 1.0 is at the threshold
    evidence: str


class Diagnosis(Record):
    """Every limit found, the most severe first (the engine before any other)."""

    findings: list[Finding] = Field(default_factory=list)

    @property
    def primary(self) -> Bottleneck:
        return self.findings[0].bottleneck if self.findings else Bottleneck.NONE

    def describe(self) -> str:
        """``"engine-bound: ..."`` or ``"none found"``."""
        if not self.findings:
            return "no bottleneck found"
        first = self.findings[0]
        return f"{first.bottleneck.value}-bound: {first.evidence}"


def _engine(e: TrialEvidence) -> Finding | None:
    if e.engine_cpu_pct is not None and e.engine_cores:
        share = e.engine_cpu_pct / (100.0 * e.engine_cores)
        if share >= ENGINE_CPU_SHARE:
            return Finding(
                bottleneck=Bottleneck.ENGINE,
                severity=share / ENGINE_CPU_SHARE,
                evidence=f"the load engine used {e.engine_cpu_pct:.0f}% of one core, "
                f"{100 * share:.0f}% of the {e.engine_cores:g} cores it may use: the "
                "numbers measure the client",
            )
    if (
        e.max_in_flight
        and e.target_rate_per_s
        and e.op_rate is not None
        and e.service_mean_ms is not None
        and e.op_rate < TARGET_SHORTFALL * e.target_rate_per_s
    ):
        in_flight = e.op_rate * e.service_mean_ms / 1e3  # Little's law
        share = in_flight / e.max_in_flight
        if share >= IN_FLIGHT_SHARE:
            return Finding(
                bottleneck=Bottleneck.ENGINE,
                severity=share / IN_FLIGHT_SHARE,
                evidence=f"{in_flight:.0f} requests in flight on average, "
                f"{100 * share:.0f}% of the engine's limit of {e.max_in_flight}, at "
                f"{e.op_rate:.0f} of {e.target_rate_per_s:.0f} ops/s asked: the client's "
                "in-flight limit bounded the rate",
            )
    return None


def _host_cpu(e: TrialEvidence) -> Finding | None:
    if e.host_cpu_pct is None or not e.host_cores:
        return None
    share = e.host_cpu_pct / (100.0 * e.host_cores)
    if share < HOST_CPU_SHARE:
        return None
    return Finding(
        bottleneck=Bottleneck.HOST_CPU,
        severity=share / HOST_CPU_SHARE,
        evidence=f"the host's CPU was {100 * share:.0f}% busy ({e.host_cpu_pct:.0f}% of one "
        f"core, {e.host_cores:g} cores)",
    )


def _node_cpu(e: TrialEvidence) -> Finding | None:
    ratios: list[tuple[float, str]] = []
    if e.node_cpu_pct is not None and e.node_cpus:
        share = e.node_cpu_pct / (100.0 * e.node_cpus)
        ratios.append(
            (
                share / NODE_CPU_SHARE,
                f"the busiest node used {e.node_cpu_pct / 100:.2f} of its {e.node_cpus:g} CPU "
                f"limit ({100 * share:.0f}%)",
            )
        )
    if e.node_throttled_pct is not None:
        ratios.append(
            (
                e.node_throttled_pct / THROTTLED_PCT,
                f"a node hit its CPU limit in {e.node_throttled_pct:.0f}% of the quota periods",
            )
        )
    if not any(r >= 1.0 for r, _ in ratios):
        return None
    return Finding(
        bottleneck=Bottleneck.NODE_CPU,
        severity=max(r for r, _ in ratios),
        evidence=", ".join(text for _, text in ratios),
    )


def _disk(e: TrialEvidence) -> Finding | None:
    ratios = [
        (value / limit, text)
        for value, limit, text in (
            (e.iowait_pct, IOWAIT_PCT, f"iowait {e.iowait_pct or 0:.0f}%"),
            (e.disk_util_pct, DISK_UTIL_PCT, f"device busy {e.disk_util_pct or 0:.0f}%"),
            (e.disk_await_ms, DISK_AWAIT_MS, f"requests waited {e.disk_await_ms or 0:.0f} ms"),
        )
        if value is not None
    ]
    over = [(r, text) for r, text in ratios if r >= 1.0]
    if not over:
        return None
    return Finding(
        bottleneck=Bottleneck.DISK,
        severity=max(r for r, _ in over),
        evidence=", ".join(text for _, text in over),
    )


def _gc(e: TrialEvidence) -> Finding | None:
    if e.gc_pause_ms is None:
        return None
    share = e.gc_pause_ms / (e.window_s * 1e3 * e.nodes)
    if share < GC_PAUSE_SHARE:
        return None
    return Finding(
        bottleneck=Bottleneck.GC,
        severity=share / GC_PAUSE_SHARE,
        evidence=f"GC pauses took {100 * share:.1f}% of each node's time "
        f"({e.gc_pause_ms:.0f} ms in {e.window_s:.0f} s, {e.nodes} node(s))",
    )


def _compaction(e: TrialEvidence) -> Finding | None:
    growth = e.compactions_pending_growth
    if growth is None or growth < COMPACTION_GROWTH:
        return None
    return Finding(
        bottleneck=Bottleneck.COMPACTION,
        severity=growth / COMPACTION_GROWTH,
        evidence=f"pending compactions grew by {growth:.0f} over the window",
    )


def _stage(e: TrialEvidence) -> Finding | None:
    worst: tuple[float, str] | None = None
    for pool, pending in e.stage_pending.items():
        if pending >= STAGE_PENDING and (worst is None or pending / STAGE_PENDING > worst[0]):
            worst = (pending / STAGE_PENDING, f"{pool} queued {pending:.0f} tasks on average")
    for pool, blocked in e.stage_blocked.items():
        if blocked > 0 and (worst is None or 1.0 + blocked / 100 > worst[0]):
            worst = (1.0 + blocked / 100, f"{pool} blocked {blocked:.0f} tasks on its full queue")
    if worst is None:
        return None
    return Finding(bottleneck=Bottleneck.STAGE_QUEUE, severity=worst[0], evidence=worst[1])


def _network(e: TrialEvidence) -> Finding | None:
    ratios: list[tuple[float, str]] = []
    if e.wan_delay_ms is not None and e.response_mean_ms:
        share = 2 * e.wan_delay_ms / e.response_mean_ms
        ratios.append(
            (
                share / WAN_LATENCY_SHARE,
                f"a WAN round trip ({2 * e.wan_delay_ms:.0f} ms) is {100 * share:.0f}% of "
                f"the mean response time ({e.response_mean_ms:.1f} ms)",
            )
        )
    if e.link_use_pct is not None:
        ratios.append(
            (e.link_use_pct / (100 * LINK_RATE_SHARE), f"a link ran at {e.link_use_pct:.0f}%")
        )
    over = [(r, text) for r, text in ratios if r >= 1.0]
    if not over:
        return None
    return Finding(
        bottleneck=Bottleneck.NETWORK,
        severity=max(r for r, _ in over),
        evidence=", ".join(text for _, text in over),
    )


_CHECKS = (_host_cpu, _node_cpu, _disk, _gc, _compaction, _stage, _network)


def diagnose(evidence: TrialEvidence) -> Diagnosis:
    """Every limit the evidence shows: the engine's first (when it is one, the trial
    measured the client), then the others by severity."""
    found = [f for check in _CHECKS if (f := check(evidence)) is not None]
    found.sort(key=lambda f: -f.severity)
    engine = _engine(evidence)
    return Diagnosis(findings=[engine, *found] if engine is not None else found)
