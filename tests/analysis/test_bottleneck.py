"""The bottleneck diagnosis on literal evidence, each threshold on both sides of it."""

from __future__ import annotations

from typing import Any

import pytest

from casslab.analysis.bottleneck import Bottleneck, TrialEvidence, diagnose
from casslab.analysis.bottleneck_evidence import LoadFacts, evidence_of
from casslab.engine_contract.engine_records import LatencyStats, OpStats, SummaryRecord

QUIET: dict[str, Any] = {
    "window_s": 60.0,
    "nodes": 1,
    "host_cores": 2,
    "host_cpu_pct": 100.0,  # half the host
    "engine_cores": 2,
    "engine_cpu_pct": 30.0,
    "iowait_pct": 2.0,
    "disk_util_pct": 10.0,
    "disk_await_ms": 1.0,
    "gc_pause_ms": 600.0,  # 1% of 60 s
    "compactions_pending_growth": 1.0,
    "stage_pending": {"MutationStage": 2.0},
    "stage_blocked": {"Native-Transport-Requests": 0.0},
}


def evidence(**changes: Any) -> TrialEvidence:
    return TrialEvidence(**{**QUIET, **changes})


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, Bottleneck.NONE),
        ({"engine_cpu_pct": 170.0}, Bottleneck.ENGINE),  # 85% of 2 cores: at the threshold
        ({"engine_cpu_pct": 160.0}, Bottleneck.NONE),  # 80%
        ({"engine_cores": 0.2, "engine_cpu_pct": 19.0}, Bottleneck.ENGINE),  # a 0.2 CPU share
        ({"host_cpu_pct": 180.0}, Bottleneck.HOST_CPU),  # 90% of 2 cores
        ({"host_cpu_pct": 178.0}, Bottleneck.NONE),
        ({"node_throttled_pct": 50.0}, Bottleneck.NODE_CPU),  # a node at its 0.5-CPU limit
        ({"node_throttled_pct": 30.0}, Bottleneck.NONE),
        ({"node_cpus": 0.5, "node_cpu_pct": 45.0}, Bottleneck.NODE_CPU),  # 90% of its quota
        ({"node_cpus": 0.5, "node_cpu_pct": 44.0}, Bottleneck.NONE),  # 88%
        ({"node_cpu_pct": 45.0}, Bottleneck.NONE),  # no quota: the host's CPU judges it
        ({"iowait_pct": 20.0}, Bottleneck.DISK),
        ({"disk_util_pct": 95.0}, Bottleneck.DISK),
        ({"disk_await_ms": 80.0}, Bottleneck.DISK),
        ({"disk_util_pct": 89.0}, Bottleneck.NONE),
        ({"gc_pause_ms": 3000.0}, Bottleneck.GC),  # 5% of 60 s
        ({"gc_pause_ms": 3000.0, "nodes": 2}, Bottleneck.NONE),  # 2.5% of each node's time
        ({"compactions_pending_growth": 5.0}, Bottleneck.COMPACTION),
        ({"compactions_pending_growth": 4.0}, Bottleneck.NONE),
        ({"stage_pending": {"MutationStage": 10.0}}, Bottleneck.STAGE_QUEUE),
        ({"stage_blocked": {"Native-Transport-Requests": 3.0}}, Bottleneck.STAGE_QUEUE),
        ({"wan_delay_ms": 25.0, "response_mean_ms": 100.0}, Bottleneck.NETWORK),  # 50%
        ({"wan_delay_ms": 20.0, "response_mean_ms": 100.0}, Bottleneck.NONE),
        ({"link_use_pct": 95.0}, Bottleneck.NETWORK),
    ],
)
def test_each_threshold(changes: dict[str, Any], expected: Bottleneck) -> None:
    assert diagnose(evidence(**changes)).primary is expected


def test_nothing_measured_finds_nothing() -> None:
    d = diagnose(TrialEvidence(window_s=10.0))
    assert d.primary is Bottleneck.NONE
    assert d.describe() == "no bottleneck found"


def test_the_engine_comes_first_and_the_rest_by_severity() -> None:
    d = diagnose(
        evidence(
            host_cpu_pct=200.0,  # 100 / 90: severity 1.11
            iowait_pct=60.0,  # 60 / 20: severity 3
            engine_cores=1,
            engine_cpu_pct=90.0,  # 90% of its one core
        )
    )
    assert [f.bottleneck for f in d.findings] == [
        Bottleneck.ENGINE,
        Bottleneck.DISK,
        Bottleneck.HOST_CPU,
    ]
    assert d.describe().startswith("engine-bound: the load engine used 90% of one core")
    assert "the numbers measure the client" in d.describe()


def test_an_open_loop_held_at_its_in_flight_limit_is_the_client() -> None:
    # 800 ops/s x 150 ms = 120 in flight of 128 allowed, far below the 5000 ops/s asked
    open_loop = {"target_rate_per_s": 5000.0, "max_in_flight": 128, "op_rate": 800.0}
    d = diagnose(evidence(**open_loop, service_mean_ms=150.0))
    assert d.primary is Bottleneck.ENGINE
    assert "120 requests in flight on average, 94% of the engine's limit of 128" in (
        d.findings[0].evidence
    )
    # the same load keeping up with its target: the limit did not bound it
    assert diagnose(evidence(**{**open_loop, "op_rate": 4900.0}, service_mean_ms=20.0)).primary is (
        Bottleneck.NONE
    )


def _summary(service_mean_ms: float) -> SummaryRecord:
    lat = LatencyStats(
        count=100, mean_ms=service_mean_ms, p50_ms=1, p95_ms=2, p99_ms=3, p999_ms=4, max_ms=5
    )
    total = OpStats(count=100, errors=0, op_rate=100.0, response=lat, service=lat)
    return SummaryRecord(duration_s=60.0, total=total, ops={}, engine_version="test")


def test_evidence_from_a_trials_kpis() -> None:
    kpis: dict[str, float | None] = {
        "host_cpu_pct": 120.0,
        "engine_cpu_pct": 95.0,
        "op_rate": 800.0,
        "latency_mean_ms": 9.0,
        "mutation_stage_pending": 14.0,
        "native_transport_requests_blocked": 0.0,
        "read_stage_pending": None,
        "compaction_executor_pending": 99.0,  # compaction: judged by its growth instead
        "compactions_pending_growth": 2.0,
        "gc_pause_ms": 100.0,
        "iowait_pct": 1.0,
    }
    facts = LoadFacts(window_s=60.0, host_cores=2, engine_cores=1)
    e = evidence_of(kpis, _summary(4.0), facts)
    assert e.stage_pending == {"MutationStage": 14.0}
    assert e.stage_blocked == {"Native-Transport-Requests": 0.0}
    assert e.service_mean_ms == 4.0
    assert e.response_mean_ms == 9.0
    d = diagnose(e)
    assert [f.bottleneck for f in d.findings] == [Bottleneck.ENGINE, Bottleneck.STAGE_QUEUE]


def test_a_node_at_its_half_core_is_node_cpu_bound_on_a_quiet_host() -> None:
    """A node limited to 0.5 CPU, using all of it while the host and the engine have room:
    the node's cgroup against its quota names it, whatever its throttled periods say."""
    d = diagnose(evidence(node_cpus=0.5, node_cpu_pct=49.0, node_throttled_pct=20.0))
    assert d.primary is Bottleneck.NODE_CPU
    assert d.describe() == (
        "node_cpu-bound: the busiest node used 0.49 of its 0.5 CPU limit (98%), "
        "a node hit its CPU limit in 20% of the quota periods"
    )
    assert [f.bottleneck for f in d.findings] == [Bottleneck.NODE_CPU]


def test_a_limited_node_comes_before_a_busy_host() -> None:
    # two nodes at their 0.5 CPU on a 2-core host kept 92% busy by the engine and the lab
    d = diagnose(
        evidence(node_cpus=0.5, node_cpu_pct=50.0, node_throttled_pct=97.0, host_cpu_pct=184.0)
    )
    assert [f.bottleneck for f in d.findings] == [Bottleneck.NODE_CPU, Bottleneck.HOST_CPU]
