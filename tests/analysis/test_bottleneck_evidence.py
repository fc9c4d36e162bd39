"""A node's CPU against its quota as the records hold it (``node<N>.container_cpu_limit_cpus``),
on literal KPIs: with and without the quota, at and below the threshold; the same rule a
live diagnosis and the report of a finished run use."""

from __future__ import annotations

import pytest

from casslab.analysis.bottleneck import NODE_CPU_SHARE, Bottleneck, diagnose
from casslab.analysis.bottleneck_evidence import (
    LoadFacts,
    evidence_of,
    node_cpu,
    quota_unrecorded,
)

FACTS = LoadFacts(window_s=10.0, nodes=2, host_cores=2.0, engine_cores=2.0)
QUIET_HOST: dict[str, float | None] = {"host_cpu_pct": 120.0, "engine_cpu_pct": 30.0}


def _kpis(**per_node: float | None) -> dict[str, float | None]:
    """``node1_cpu=45.0, node1_limit=0.5`` -> ``node1.container_cpu_pct`` and
    ``node1.container_cpu_limit_cpus``, over a quiet host."""
    names = {"cpu": "container_cpu_pct", "limit": "container_cpu_limit_cpus"}
    out = dict(QUIET_HOST)
    for key, value in per_node.items():
        node, _, what = key.partition("_")
        out[f"{node}.{names[what]}"] = value
    return out


@pytest.mark.parametrize(
    ("kpis", "expected"),
    [
        # two nodes at half a CPU: 90% of the quota is the threshold
        (_kpis(node1_cpu=45.0, node1_limit=0.5, node2_cpu=30.0, node2_limit=0.5), (45.0, 0.5)),
        # the node nearest its own limit, not the busiest: 40 of 0.5 (80%) > 60 of 1 (60%)
        (_kpis(node1_cpu=60.0, node1_limit=1.0, node2_cpu=40.0, node2_limit=0.5), (40.0, 0.5)),
        # a limited node and an unlimited one: the limited one is judged
        (_kpis(node1_cpu=150.0, node2_cpu=20.0, node2_limit=0.5), (20.0, 0.5)),
        # no quota recorded (an old run, or unlimited cgroups): the busiest, no limit
        (_kpis(node1_cpu=46.0, node2_cpu=49.0), (49.0, None)),
        (_kpis(node1_cpu=None, node2_cpu=49.0), (49.0, None)),
        (dict(QUIET_HOST), (None, None)),  # not isolated: no cgroup at all
    ],
)
def test_node_cpu_is_the_node_nearest_its_recorded_quota(
    kpis: dict[str, float | None], expected: tuple[float | None, float | None]
) -> None:
    assert node_cpu(kpis) == expected


@pytest.mark.parametrize(
    ("kpis", "expected"),
    [
        (_kpis(node1_cpu=45.0, node1_limit=0.5, node2_cpu=44.0, node2_limit=0.5), True),  # 90%
        (_kpis(node1_cpu=44.0, node1_limit=0.5, node2_cpu=44.0, node2_limit=0.5), False),  # 88%
        (_kpis(node1_cpu=90.0, node1_limit=1.0), True),  # 90% of one CPU
        (_kpis(node1_cpu=89.0, node1_limit=1.0), False),
        (_kpis(node1_cpu=49.0, node2_cpu=49.0), False),  # no quota: not judged by CPU
    ],
)
def test_a_node_is_cpu_bound_at_its_share_of_the_quota(
    kpis: dict[str, float | None], expected: bool
) -> None:
    d = diagnose(evidence_of(kpis, None, FACTS))
    assert (d.primary is Bottleneck.NODE_CPU) is expected
    assert NODE_CPU_SHARE == 0.90  # the threshold the cases above sit on


def test_the_finding_names_the_recorded_limit() -> None:
    kpis = _kpis(node1_cpu=46.0, node1_limit=0.5, node2_cpu=49.0, node2_limit=0.5)
    kpis["container_throttled_periods_pct"] = 12.0  # below its own threshold
    e = evidence_of(kpis, None, FACTS)
    assert (e.node_cpus, e.node_cpu_pct, e.node_throttled_pct) == (0.5, 49.0, 12.0)
    assert diagnose(e).describe() == (
        "node_cpu-bound: the busiest node used 0.49 of its 0.5 CPU limit (98%), "
        "a node hit its CPU limit in 12% of the quota periods"
    )
    assert not quota_unrecorded(kpis)


def test_without_the_quota_throttling_alone_judges_and_it_is_said() -> None:
    """A run recorded before the quota was sampled: the same node CPU is not judged
    against a limit, but its throttled periods still are."""
    old = _kpis(node1_cpu=49.0, node2_cpu=49.0)
    assert quota_unrecorded(old)
    assert diagnose(evidence_of(old, None, FACTS)).primary is Bottleneck.NONE
    throttled = {**old, "container_throttled_periods_pct": 60.0}
    d = diagnose(evidence_of(throttled, None, FACTS))
    assert d.describe() == "node_cpu-bound: a node hit its CPU limit in 60% of the quota periods"
    assert not quota_unrecorded(dict(QUIET_HOST))  # no cgroup: nothing to record
