"""A node's injected clock skew: offsets and drifts as typed, the clock file, the version
check, and ``--clock`` in the cluster spec (pure; the real clocks are in
test_clock_integration.py)."""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from casslab.cluster import clock_skew
from casslab.cluster.distribution import Distribution
from casslab.cluster.local import launch
from casslab.cluster.model import ClusterState, Node, cluster_spec
from casslab.errors import ConfigError


def _node(tmp_path: Path) -> Node:
    return Node(
        number=2,
        address="127.0.0.2",
        native_port=9042,
        storage_port=7000,
        jmx_port=7192,
        directory=tmp_path / "node2",
    )


@pytest.mark.parametrize(
    ("text", "ms"), [("-500ms", -500.0), ("+1.5s", 1500.0), ("250ms", 250.0), ("-2s", -2000.0)]
)
def test_an_offset_is_a_signed_duration_with_its_unit(text: str, ms: float) -> None:
    assert clock_skew.parse_offset(text) == ms


@pytest.mark.parametrize("text", ["500", "-500", "-500xs", "ms", "-2d"])
def test_an_offset_without_a_unit_or_beyond_a_day_is_refused(text: str) -> None:
    with pytest.raises(ConfigError, match=rf"clock offset '{text}'"):
        clock_skew.parse_offset(text)


def test_a_drift_is_parts_per_million_with_the_unit() -> None:
    assert clock_skew.parse_drift("+50ppm") == 50.0
    assert clock_skew.parse_drift("-20ppm") == -20.0
    with pytest.raises(ConfigError, match="give parts per million with the unit"):
        clock_skew.parse_drift("50")


def test_a_drift_accumulates_from_when_it_was_set_and_a_change_does_not_jump(
    tmp_path: Path,
) -> None:
    since = clock_skew.now_ms() - 10_000
    skew = clock_skew.ClockSkew(offset_ms=-500, drift_ppm=100, since_ms=since)
    assert skew.at(since) == -500
    assert skew.at(since + 10_000) == pytest.approx(-499.0)  # 10 s at 100 ppm: +1 ms
    node = _node(tmp_path)
    clock_skew.write_skew(node, skew)
    assert clock_skew.read_skew(node) == skew
    assert clock_skew.clock_file(node).read_text() == f"-500 100 {since}\n"
    drifting = clock_skew.set_drift(node, 50)
    assert drifting.offset_ms == pytest.approx(skew.at(drifting.since_ms), abs=0.01)
    stepped = clock_skew.set_offset(node, 200)
    assert (stepped.offset_ms, stepped.drift_ppm) == (200, 50)  # the drift stays


def test_a_missing_or_broken_clock_file_means_no_skew(tmp_path: Path) -> None:
    node = _node(tmp_path)
    assert clock_skew.read_skew(node) == clock_skew.ClockSkew()
    clock_skew.clock_file(node).parent.mkdir(parents=True)
    clock_skew.clock_file(node).write_text("garbage\n")
    assert clock_skew.read_skew(node) == clock_skew.ClockSkew()


def test_a_cassandra_without_the_pluggable_clock_is_named(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "apache-cassandra-4.0.13.jar", "w") as jar:
        jar.writestr("org/apache/cassandra/utils/Clock.class", b"")  # 4.0: a class
    assert not clock_skew.supports_clock(tmp_path)
    assert clock_skew.clock_classes(Path("/usr/bin/java"), tmp_path) is None
    message = str(clock_skew.unsupported("4.0.13"))
    assert "Cassandra 4.0.13 has no pluggable clock" in message
    assert "use 4.1 or later" in message
    with zipfile.ZipFile(tmp_path / "cassandra-all-5.0.9.jar", "w") as jar:
        jar.writestr(clock_skew.CLOCK_INTERFACE, b"")
    assert clock_skew.supports_clock(tmp_path)


def test_the_node_runs_casslabs_clock_reading_its_file(tmp_path: Path) -> None:
    node = _node(tmp_path)
    assert clock_skew.jvm_flags(node) == [
        "-Dcassandra.clock=casslab.SkewedClock",
        f"-Dcasslab.clock.file={tmp_path / 'node2' / 'conf' / 'clock'}",
        # internode message ages see a skew within a second, not Cassandra's default 10 s
        "-Dcassandra.NANOTIMETOMILLIS_TIMESTAMP_UPDATE_INTERVAL=1000",
    ]


def test_clock_offsets_in_the_spec_name_real_nodes_with_units() -> None:
    assert cluster_spec(nodes=3, clock=["2=-500ms", "3=+1s"]).clock == {2: -500.0, 3: 1000.0}
    assert cluster_spec(nodes=2, clock={2: "-250ms"}).clock == {2: -250.0}
    clock_skew.check_nodes({2: -500.0}, [1, 2, 3])
    with pytest.raises(ConfigError, match=r"--clock: node\(s\) 4 do not exist; the cluster has"):
        clock_skew.check_nodes({4: -500.0, 2: 1.0}, [1, 2, 3])
    with pytest.raises(ValueError, match="give a number with its unit"):
        cluster_spec(nodes=3, clock=["2=-500"])
    with pytest.raises(ValueError, match="expected NODE=OFFSET"):
        cluster_spec(nodes=3, clock=["-500ms"])


def _state(tmp_path: Path, **spec: object) -> ClusterState:
    made = cluster_spec(name="c", nodes=2, **spec)  # type: ignore[arg-type]
    return ClusterState(
        spec=made,
        cassandra_version="5.0.9",
        lib_dir=tmp_path / "lib",
        java=Path("/usr/bin/java"),
        java_feature=17,
        heap="512M",
        directory=tmp_path,
        nodes=[_node(tmp_path)],
        settings={},
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_nodes_run_cassandras_own_clock_unless_a_skew_or_the_flag_asks_for_casslabs() -> None:
    assert not cluster_spec(nodes=2).injectable_clock
    assert cluster_spec(nodes=2, injectable_clock=True).injectable_clock
    assert cluster_spec(nodes=2, clock=["2=-500ms"]).injectable_clock  # offsets need it
    assert not cluster_spec(nodes=2, clock=[]).injectable_clock


def test_a_stock_node_has_no_casslab_class_and_no_changed_clock_property(tmp_path: Path) -> None:
    state = _state(tmp_path)
    node = state.nodes[0]
    command = launch.node_command(state, node)
    assert command[command.index("-cp") + 1] == f"{tmp_path / 'lib'}/*"
    assert not [a for a in command if "casslab." in a and not a.startswith("-Dcasslab.node=")]
    assert not [a for a in command if a.startswith(("-Dcassandra.clock", "-Dcassandra.NANO"))]
    skewed = launch.node_command(state, node, clock_dir=tmp_path / "clock")
    assert skewed[skewed.index("-cp") + 1] == f"{tmp_path / 'lib'}/*:{tmp_path / 'clock'}"
    assert set(clock_skew.jvm_flags(node)) <= set(skewed)


def test_skewing_a_stock_cluster_says_how_to_start_it_with_the_clock(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "cassandra-all-5.0.9.jar", "w") as jar:
        jar.writestr(clock_skew.CLOCK_INTERFACE, b"")
    state = _state(tmp_path).model_copy(update={"lib_dir": tmp_path})
    with pytest.raises(ConfigError) as refused:
        clock_skew.require_injectable(state)
    assert "runs Cassandra's own clock (stock nodes)" in str(refused.value)
    assert "`casslab up --name c --injectable-clock`" in str(refused.value)
    enabled = clock_skew.with_injectable_clock(state)
    clock_skew.require_injectable(enabled)  # no error
    assert enabled.spec.injectable_clock


def test_the_injectable_clock_needs_cassandra_4_1(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "apache-cassandra-4.0.13.jar", "w") as jar:
        jar.writestr("org/apache/cassandra/utils/Clock.class", b"")
    dist = Distribution(
        version="4.0.13", lib_dir=tmp_path, source="maven", main_jar=tmp_path / "x.jar"
    )
    clock_skew.check_request({}, 2, dist, injectable=False)  # stock: fine on 4.0
    with pytest.raises(ConfigError, match=r"4\.0\.13 has no pluggable clock"):
        clock_skew.check_request({}, 2, dist, injectable=True)
    with pytest.raises(ConfigError, match=r"node\(s\) 3 do not exist"):
        clock_skew.check_request({3: 1.0}, 2, dist, injectable=True)
