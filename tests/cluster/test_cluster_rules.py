"""Pure cluster rules: Cassandra's ranges, memory fit, stored-vs-asked spec, start-up reason."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from casslab.cluster.heap import heap_problem
from casslab.cluster.limits import range_problem
from casslab.cluster.model import ClusterSpec, ClusterState, Node, cluster_spec, spec_mismatches
from casslab.cluster.wait import startup_reason

GIB = 1024**3


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("concurrent_compactors", -5, "requires at least 1"),
        ("concurrent_compactors", 0, "requires at least 1"),
        ("concurrent_compactors", 1, None),
        ("concurrent_reads", 1, "requires at least 2"),
        ("memtable_flush_writers", 0, "requires at least 1"),
        ("memtable_cleanup_threshold", 0.005, "between 0.01 and 0.99"),
        ("memtable_cleanup_threshold", 1.0, "between 0.01 and 0.99"),
        ("memtable_cleanup_threshold", 0.14, None),
        ("phi_convict_threshold", 17, "between 5 and 16"),
        ("memtable_heap_space", "0MiB", "requires at least 1"),
        ("memtable_heap_space", "2048MiB", None),
        ("commitlog_segment_size", "2048MiB", "between 1 and 2047MiB"),
        ("commitlog_segment_size", "32MiB", None),
        ("compaction_throughput", "16MiB/s", None),  # no known bound: not judged
        ("concurrent_compactors", True, None),  # a type error is the type check's job
    ],
)
def test_cassandra_ranges(key: str, value: Any, expected: str | None) -> None:
    problem = range_problem(key, value, "5.0.9")
    if expected is None:
        assert problem is None
    else:
        assert problem is not None
        assert problem.startswith(f"{key}: {value!r} is out of range")
        assert expected in problem
        assert "Cassandra 5.0.9" in problem
        assert f"--set {key}=" in problem


def test_heap_that_fits_is_accepted() -> None:
    assert heap_problem(1024, 3, available_bytes=20 * GIB, total_bytes=24 * GIB) is None


def test_heap_larger_than_the_machine_names_both_and_a_fitting_heap() -> None:
    problem = heap_problem(100 * 1024, 1, available_bytes=20 * GIB, total_bytes=24 * GIB)
    assert problem is not None
    assert "heap 102400M x 1 node(s) needs about 100.5 GiB" in problem
    assert "20.0 GiB available (24.0 GiB in all)" in problem
    assert "choose --heap 19968M or less" in problem


def test_too_many_nodes_for_the_machine_asks_for_fewer() -> None:
    problem = heap_problem(256, 9, available_bytes=2 * GIB, total_bytes=4 * GIB)
    assert problem is not None
    assert problem.endswith("use fewer nodes")


def _state(nodes: int = 3, heap: str = "1024M") -> ClusterState:
    spec = cluster_spec(name="p", nodes=nodes, heap=heap)
    return ClusterState(
        spec=spec,
        cassandra_version="5.0.9",
        lib_dir=Path("/lib"),
        java=Path("/java"),
        java_feature=17,
        heap=heap,
        directory=Path("/c/p"),
        nodes=[
            Node(
                number=n,
                address=spec.address(n),
                native_port=9042,
                storage_port=7000,
                jmx_port=7190 + n,
                directory=Path(f"/c/p/node{n}"),
            )
            for n in range(1, nodes + 1)
        ],
        settings={},
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


@pytest.mark.parametrize(
    ("asked", "given", "expected"),
    [
        (cluster_spec(name="p"), frozenset(), []),  # nothing given: start it as it is
        (cluster_spec(name="p", nodes=1), frozenset(), []),  # a default is not a request
        (cluster_spec(name="p", nodes=3), frozenset({"nodes"}), []),
        (
            cluster_spec(name="p", nodes=2),
            frozenset({"nodes"}),
            ["nodes: asked 2, the stored cluster has 3"],
        ),
        (cluster_spec(name="p", heap="1G"), frozenset({"heap"}), []),  # 1G is 1024M
        (
            cluster_spec(name="p", heap="512M", version="4.1.5"),
            frozenset({"heap", "version"}),
            [
                "version: asked 4.1.5, the stored cluster has 5.0.9",
                "heap: asked 512M, the stored cluster has 1024M",
            ],
        ),
        (
            cluster_spec(name="p", base_address="127.0.2.1"),
            frozenset({"base_address"}),
            ["base_address: asked 127.0.2.1, the stored cluster has 127.0.0.1"],
        ),
    ],
)
def test_spec_mismatches(asked: ClusterSpec, given: frozenset[str], expected: list[str]) -> None:
    assert spec_mismatches(_state(), asked, given) == expected


def test_a_stopped_cluster_with_other_datacenters_or_links_is_another_cluster() -> None:
    spec = cluster_spec(name="p", topology="dc1:2,dc2:1", links=["dc1-dc2=20ms"])
    stored = _state().model_copy(update={"spec": spec})
    given = frozenset({"topology", "links"})
    assert spec_mismatches(stored, spec, given) == []
    other = cluster_spec(name="p", topology="dc1:1,dc2:2", links=["dc1-dc2=30ms,loss=1%"])
    assert spec_mismatches(stored, other, given) == [
        "topology: asked dc1:1,dc2:2, the stored cluster has dc1:2,dc2:1",
        "links: asked --link dc1-dc2=30ms,loss=1%, the stored cluster has --link dc1-dc2=20ms",
    ]


def test_old_state_files_count_as_started() -> None:
    """State written before ``started_once`` existed was of clusters that were ready."""
    data = _state().model_dump(mode="json")
    del data["started_once"]
    assert ClusterState.model_validate(data).started_once is True


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (
            (
                "INFO  [main] Node configuration:[...]\n"
                "Exception (org.apache.cassandra.exceptions.ConfigurationException) encountered"
                " during startup: concurrent_compactors should be strictly greater than 0, but"
                " was -5\n"
                "org.apache.cassandra.exceptions.ConfigurationException: concurrent_compactors"
                " should be strictly greater than 0, but was -5\n",
                "",
            ),
            "concurrent_compactors should be strictly greater than 0, but was -5",
        ),
        (
            ("", "ERROR [main] x\njava.lang.IllegalStateException: port in use\n\tat a.b(C)\n"),
            "port in use",
        ),
        (("INFO all good\n", "INFO still fine\n"), None),
    ],
)
def test_startup_reason(texts: tuple[str, str], expected: str | None) -> None:
    assert startup_reason(*texts) == expected


def test_leftovers_are_found_through_a_symbolic_link(tmp_path: Path) -> None:
    """A JVM started under a linked CASSLAB_HOME names the unresolved path."""
    import subprocess
    import sys

    from casslab.cluster.local.launch import leftover_pids

    real = tmp_path / "real"
    (real / "c" / "node1").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real)
    directory = link / "c"
    sleeper = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; time.sleep(30)",
            f"-Dcassandra.storagedir={directory}/node1",
        ]
    )
    try:
        assert sleeper.pid in leftover_pids(directory)
        assert leftover_pids(tmp_path / "other") == []
    finally:
        sleeper.kill()
        sleeper.wait()
