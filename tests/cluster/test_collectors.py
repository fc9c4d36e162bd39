"""The nodes' garbage collector (cluster/collectors.py, cluster/jvm.py): Cassandra's G1
settings by default, another collector only when asked, and asked of the JVM whether it has
it."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.cluster import cluster_spec, collectors, jvm
from casslab.cluster.model import Node
from casslab.host import jdk


def _command(gc: str | None) -> list[str]:
    node = Node(
        number=1,
        address="127.0.0.1",
        native_port=9042,
        storage_port=7000,
        jmx_port=7191,
        directory=Path("/tmp/n1"),
    )
    return jvm.daemon_command(Path("/usr/bin/java"), 17, "lib/*", node, 512, gc=gc)


def test_a_node_runs_cassandras_g1_settings_unless_asked() -> None:
    stock = _command(None)
    assert "-XX:+UseG1GC" in stock
    assert "-XX:G1HeapRegionSize=16m" in stock
    assert "-Dio.netty.allocator.maxOrder=11" in stock
    zgc = _command("ZGC")
    assert "-XX:+UseZGC" in zgc
    assert not [flag for flag in zgc if "G1" in flag]
    assert "-Dio.netty.allocator.maxOrder=11" in zgc  # not a collector's flag


@pytest.mark.parametrize(
    ("given", "name"), [("zgc", "ZGC"), ("G1GC", "G1"), ("shenandoah", "Shenandoah")]
)
def test_names_are_canonical(given: str, name: str) -> None:
    assert collectors.canonical(given) == name
    assert cluster_spec(gc=given).gc == name


def test_an_unknown_collector_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="gc 'cms': expected one of G1, ZGC, Shenandoah, Parallel"):
        collectors.canonical("cms")


def test_the_jvm_says_which_collectors_it_has(tmp_path: Path) -> None:
    java = jdk.probe().java
    assert collectors.unsupported(java, "G1") is None
    assert collectors.unsupported(java, "ZGC") is None  # every JDK 17 build has ZGC
    missing = collectors.unsupported(tmp_path / "no-java", "ZGC")
    assert missing is not None
    assert "could not be asked" in missing
