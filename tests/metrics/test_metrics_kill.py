"""A node killed while its metrics are recorded (addresses 127.0.30.11-12, JMX 7311-12):
a gap for it, and the other node keeps being sampled."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab import metrics
from casslab.cluster import LocalCluster, cluster_spec

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    spec = cluster_spec(
        name="metrics2", nodes=2, heap="512M", base_address="127.0.30.11", jmx_port_base=7310
    )
    with LocalCluster.create(spec, root=tmp_path_factory.mktemp("metrics2")) as cluster:
        yield cluster


# measuring: every sampler of the live node answers each second (CQL within its timeout)
@pytest.mark.measuring
def test_killed_node_leaves_a_gap_and_the_other_goes_on(
    two_nodes: LocalCluster, tmp_path: Path
) -> None:
    victim = two_nodes.node(2)
    assert victim.pid is not None
    out = tmp_path / "kill.parquet"
    with metrics.recorder(metrics.targets_from_nodes(two_nodes.nodes), out) as rec:
        time.sleep(3.5)
        os.kill(victim.pid, signal.SIGKILL)
        killed_at = time.time()
        time.sleep(6.5)
    df = metrics.load(out)
    gaps = metrics.load_gaps(out)
    record = gaps.to_dict("records")
    assert rec.ticks >= 7, (rec.ticks, record)  # fewer than 10 only on a swamped machine
    survivor, dead = two_nodes.node(1).address, victim.address

    dead_gaps = gaps[gaps.node == dead]
    assert {"process", "cql", "jmx"} <= set(dead_gaps.source), record
    assert (dead_gaps.time >= killed_at - 1.0).all(), (killed_at, record)
    assert not (gaps.node == survivor).any(), record

    after = df[df.time > killed_at + 1.5]
    for node, present in ((survivor, True), (dead, False)):
        mine = after[after.node == node]
        for metric_name in ("cassandra.compactions_completed", "process.rss_bytes"):
            assert (metric_name in set(mine.metric)) is present, (node, metric_name, record)
    # the survivor was sampled at the instants after the kill
    survivor_times = after[
        (after.node == survivor) & (after.metric == "cassandra.memtable_flushes")
    ].time
    assert len(survivor_times) >= 3, (sorted(survivor_times), killed_at, record)
    before = df[(df.time < killed_at) & (df.node == dead)]
    assert "cassandra.sstables" in set(before.metric)
