"""Real nodes with an injected clock skew: a -500 ms offset on node 2 is measured as such
(and node 1 as on time), a change at run time shows in the next seconds of the per-second
clock metric, and last-write-wins loses an acknowledged update written 100 ms after the
first through the node whose clock is behind, none without the skew and none with
client-side timestamps; ``up`` of the stopped cluster sets a clock, and a clock behind by
more than the write timeout has its writes dropped as expired.

A cluster of its own, not the shared ones: its nodes start with an injected clock and one
test restarts them with another; the restart happens once, in the measuring phase."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from casslab.cluster import clock_skew, cluster_spec, create
from casslab.cluster.backend import Cluster
from casslab.cluster.lww import LwwCase, probe, run_case
from casslab.metrics.cql import CqlSource
from cli_entry import casslab

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def skewed() -> Iterator[Cluster]:
    spec = cluster_spec(
        name="skewed",
        nodes=2,
        heap="512M",
        base_address="127.0.234.1",
        jmx_port_base=9300,
        clock=["2=-500ms"],
    )
    with create(spec, remove_on_exit=True) as cluster:
        yield cluster


@pytest.mark.measuring  # offsets measured over CQL round trips within 5 ms
def test_an_injected_offset_is_measured_on_its_node_only(skewed: Cluster) -> None:
    shown = casslab(None, "clock", "--name", "skewed", "--json")
    assert shown.returncode == 0, shown.stderr
    readings = {r["node"]: r for r in json.loads(shown.stdout)}
    assert readings[1]["offset_ms"] == pytest.approx(0, abs=5)
    assert readings[2]["offset_ms"] == pytest.approx(-500, abs=5)
    assert all(r["delay_ms"] > 0 for r in readings.values())


def _metric(source: CqlSource) -> float:
    samples = {s.metric: s.value for s in source.sample(time.time())}
    return samples["clock.offset_ms"]


@pytest.mark.measuring  # offsets measured over CQL round trips within 5 ms
def test_a_change_at_run_time_shows_in_the_next_seconds_of_the_metric(skewed: Cluster) -> None:
    node = skewed.node(2)
    source = CqlSource(node.address, node.address, node.native_port)
    try:
        assert _metric(source) == pytest.approx(-500, abs=5)
        changed = casslab(None, "clock", "set", "2", "+250ms", "--name", "skewed")
        assert changed.returncode == 0, changed.stderr
        seen = []
        for _ in range(3):  # the node reads its clock file every 100 ms
            time.sleep(1.0)
            seen.append(_metric(source))
        assert seen[-1] == pytest.approx(250, abs=5), seen
    finally:
        source.close()
        clock_skew.set_offset(node, -500.0)
        time.sleep(0.3)


def test_a_clock_behind_loses_acknowledged_updates_and_none_without_skew(
    skewed: Cluster,
) -> None:
    behind = run_case(skewed, LwwCase(skew_ms=-500, gap_ms=100), keys=10)
    assert behind.expected_lost
    assert behind.lost is not None
    assert behind.unacknowledged == 0
    assert (behind.lost.hits, behind.lost.n) == (10, 10)  # every v2 is older than its v1
    assert behind.lost.low > 0.5
    on_time = run_case(skewed, LwwCase(skew_ms=0, gap_ms=100), keys=10)
    assert on_time.lost is not None
    assert on_time.lost.hits == 0
    assert (on_time.unacknowledged, on_time.expired) == (0, 0)
    client = run_case(skewed, LwwCase(skew_ms=-500, gap_ms=100, client_timestamps=True), keys=10)
    assert client.lost is not None
    assert client.lost.hits == 0  # the control: the driver's clock stamps the writes
    assert clock_skew.read_skew(skewed.node(2)).offset_ms == -500  # set back after each case


def test_bad_clock_input_is_named(skewed: Cluster) -> None:
    negative = casslab(None, "clock", "drift", "2", "-20ppm", "--name", "skewed")
    assert negative.returncode == 0, negative.stderr
    assert "drifting -20 ppm" in negative.stdout
    unit = casslab(None, "clock", "set", "2", "-500", "--name", "skewed")
    assert unit.returncode == 1
    assert "clock offset '-500': give a number with its unit" in " ".join(unit.stderr.split())
    missing = casslab(None, "clock", "set", "7", "-500ms", "--name", "skewed")
    assert missing.returncode == 1
    assert "has no node 7" in missing.stderr


def test_the_lww_study_prints_each_case_and_the_control(skewed: Cluster) -> None:
    done = casslab(
        None,
        "clock", "lww", "--skews", "-500ms", "--gaps", "100ms", "--keys", "5", "--json",
        "--name", "skewed",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["case"]["client_timestamps"], r["lost"]["hits"]) for r in results] == [
        (False, 5),
        (True, 0),
    ]


@pytest.mark.measuring  # offsets measured over CQL round trips within 5 ms
def test_up_of_the_stopped_cluster_with_a_clock_sets_it_and_writes_past_the_timeout_expire(
    skewed: Cluster,
) -> None:
    """One restart for both checks (each start of this cluster costs 20-40 s): ``up`` of
    the stopped cluster with ``--clock`` sets node 2's clock, measured as such, and with
    it 3 s behind, past the 2 s write timeout, its updates are dropped as expired.

    Node 1 ages node 2's mutations by node 2's clock: 3 s old on arrival, past the 2 s
    write timeout, so it drops them and QUORUM (both replicas) is never reached. Set
    before the start: a step at run time reaches message ages only once Cassandra accepts
    a new sample of its wall clock, which a busy machine can delay."""
    down = casslab(None, "down", "--name", "skewed")
    assert down.returncode == 0, down.stderr
    up = casslab(None, "up", "--name", "skewed", "--clock", "2=-3000ms")
    assert up.returncode == 0, up.stderr
    # the time UUIDs the measurement reads never go back (Cassandra keeps them increasing):
    # one the node gave during its start, before it read its clock file, reads ahead until
    # its clock, 3 s behind, passes it: 3 s after `up` returned at the latest
    time.sleep(3.2)
    shown = casslab(None, "clock", "--name", "skewed", "--json")
    readings = {r["node"]: r["offset_ms"] for r in json.loads(shown.stdout)}
    assert readings[2] == pytest.approx(-3000, abs=5)
    assert readings[1] == pytest.approx(0, abs=5)
    behind = probe(skewed, gap_ms=0, keys=3)
    assert behind.unacknowledged == 3
    assert behind.lost is None  # no update was acknowledged, so none was lost
    assert behind.expired >= 3
