"""Profiles of a real node under a write load: a JFR recording of the loaded seconds, its
collapsed stacks and flame graph, whose hottest frames include Cassandra's write path. On
the session's shared node, emptied before and after; in the measuring phase, alone on the
machine (the test counts the node's CPU samples)."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from cassandra.concurrent import execute_concurrent_with_args

from casslab.cluster import LocalCluster
from casslab.experiment.steps.profile.profile_phase import Profiler
from casslab.report.flame.diff import method_shares
from casslab.report.flame.stacks import ProfileKind, parse_collapsed
from shared_clusters import emptied
from write_path import write_path_percent

pytestmark = pytest.mark.integration

LOAD_S = 6.0  # the write load's least length: 159 samples alone (4 rounds are 1-2 s)


@pytest.fixture(scope="module")
def one_node(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


# measuring: the count of CPU samples is the node's share of the machine. Beside the other
# worker it drew 32 and then 36 samples (under the 50 asked for), the second time with the
# load at its 6 s; alone, 159 (2026-11-30)
@pytest.mark.measuring
def test_a_write_load_shows_in_the_nodes_cpu_profile(
    one_node: LocalCluster, tmp_path: Path
) -> None:
    session = one_node.session()
    session.execute(
        "CREATE KEYSPACE pf WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
    )
    session.execute("CREATE TABLE pf.t (k int PRIMARY KEY, v text)")
    insert = session.prepare("INSERT INTO pf.t (k, v) VALUES (?, ?)")
    [node] = one_node.nodes
    assert node.pid is not None
    profiler = Profiler({1: node.pid}, [ProfileKind.CPU, ProfileKind.ALLOC], tmp_path)
    profiler.start()
    try:
        # 4 rounds, and more until the load has lasted LOAD_S: the sampler counts the node's
        # threads while they run Java code, and 4 rounds alone (20,000 rows, 1-2 s) drew 32
        # samples once, when the other worker kept the cores busy
        deadline, round_ = time.monotonic() + LOAD_S, 0
        while round_ < 4 or time.monotonic() < deadline:
            rows = [(round_ * 5000 + i, "v" * 200) for i in range(5000)]
            results = execute_concurrent_with_args(session, insert, rows, concurrency=64)
            assert all(ok for ok, _ in results)
            round_ += 1
    finally:
        profiles = profiler.stop()
    assert (tmp_path / "node1.jfr").stat().st_size > 100_000
    assert [(p.node, p.kind) for p in profiles] == [(1, ProfileKind.CPU), (1, ProfileKind.ALLOC)]
    cpu = parse_collapsed(Path(profiles[0].stacks_path).read_text())
    assert sum(cpu.values()) == profiles[0].weight > 50
    # measured: the hottest write-path frame alone held 3.8% of the samples on CI's busy
    # machine (a 5% bound failed); every stack through the write path is the steadier count
    on_write_path = write_path_percent(cpu)
    top = sorted(method_shares(cpu).items(), key=lambda kv: -kv[1])[:25]
    print(f"write path: {on_write_path:.1f}% of {sum(cpu.values())} samples")
    assert on_write_path > 5.0, top
    svg = ET.parse(profiles[0].svg_path).getroot()
    assert svg.tag.endswith("svg")
    assert profiles[1].weight > 0  # bytes allocated, sampled
