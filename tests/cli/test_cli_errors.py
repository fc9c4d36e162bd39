"""Bad input gets a clear error and starts nothing (real CLI, real JDK checks)."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_entry import casslab, processes_under


def _started_nothing(home: Path) -> bool:
    return processes_under(home) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["up", "--set", "memtable_flush_writer=6"],
            "memtable_flush_writer: unknown cassandra.yaml setting in Cassandra 5.0.9 "
            "(did you mean memtable_flush_writers?)",
        ),
        (
            ["up", "--set", "concurrent_compactors=lots"],
            "concurrent_compactors: expected an integer, got 'lots'",
        ),
        (
            ["up", "--set", "compaction_throughput=16"],
            "compaction_throughput: expected a rate like 16MiB/s",
        ),
        (["up", "--set", "listen_address=127.0.0.9"], "listen_address: set by casslab"),
        (["up", "--heap", "64M"], "--heap: heap '64M': Cassandra needs at least 256M"),
        (
            ["up", "--set", "concurrent_compactors=-5"],
            "concurrent_compactors: -5 is out of range; Cassandra 5.0.9 requires at least 1",
        ),
        (["up", "--heap", "100G"], "heap 102400M x 1 node(s) needs about 100.5 GiB"),
        (["up", "--name", "a b"], "--name: cluster name 'a b': use letters, digits"),
        (["up", "--version", "4.1.5"], "Cassandra 4.1.5 needs JDK 8 or 11"),
        (["up", "--version", "5.0.99"], "Cassandra 5.0.99 is not on Maven Central"),
        (["up", "--version", "five"], "is not of the form X.Y.Z"),
        (["up", "--java-home", "jdk17"], "java_home 'jdk17': give the JDK's absolute path"),
        (
            ["up", "--java-home", "/nonexistent"],
            "java_home /nonexistent has no executable bin/java",
        ),
        (["status"], "no cluster: start one with `casslab up"),
        (["up", "--topology", "dc1:2,dc1:1"], "datacenter 'dc1' is named twice"),
        (["up", "--topology", "dc1=2"], "'dc1=2' is not NAME:NODES"),
        (
            ["up", "--topology", "dc1:1,dc2:1", "--link", "dc1-dc3=5ms"],
            "--link dc1-dc3: datacenter(s) dc3 are not in the topology (dc1, dc2)",
        ),
        (
            ["up", "--topology", "dc1:1,dc2:1", "--link", "dc1-dc2=2.5ms"],
            "the link emulator delays in whole milliseconds",
        ),
        (["up", "--link", "dc1-dc2=5ms"], "links join datacenters: give a topology too"),
        (
            ["up", "--topology", "dc1:1", "--isolation", "process"],
            "datacenters and links need nodes in network namespaces",
        ),
        (["net", "show"], "no cluster: start one with `casslab up"),
        (["up", "--nodes", "2", "--clock", "3=-500ms"], "--clock: node(s) 3 do not exist"),
        (["up", "--nodes", "2", "--clock", "2=-500"], "give a number with its unit"),
        (["clock", "set", "2", "-5ms"], "no cluster: start one with `casslab up"),
    ],
)
def test_bad_input_is_named_and_nothing_starts(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = casslab(tmp_path, *args)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Error:" in result.stderr
    assert message in " ".join(result.stderr.split()), result.stderr
    assert _started_nothing(tmp_path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["up", "--nodes", "0"], "--nodes 0: a local cluster has 1 to 9 nodes"),
        (["up", "--nodes", "10"], "--nodes 10: a local cluster has 1 to 9 nodes"),
        (["up", "--racks", "2"], "--racks 2: racks are per datacenter; give --topology too"),
        (["up", "--nodes", "x"], "expected an integer, got 'x'"),
    ],
)
def test_bad_option_values_are_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    """Exit 2, as README says of an option value the command checks itself."""
    result = casslab(tmp_path, *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in " ".join(result.stderr.split()), result.stderr
    assert "Input should be" not in result.stderr
    assert _started_nothing(tmp_path)


def test_missing_jdk(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    result = casslab(tmp_path, "up", env={"PATH": str(bin_dir), "JAVA_HOME": ""})
    assert result.returncode == 1
    assert "no java on PATH" in result.stderr
    assert "JDK 11 or 17" in result.stderr
    assert _started_nothing(tmp_path)


@pytest.fixture
def busy_cql_port() -> Iterator[str]:
    address = "127.0.2.1"
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((address, 9042))
        sock.listen(1)
        yield address


def test_busy_port(tmp_path: Path, busy_cql_port: str) -> None:
    result = casslab(tmp_path, "up", "--base-address", busy_cql_port, "--jmx-port-base", "7490")
    assert result.returncode == 1
    text = " ".join(result.stderr.split())
    assert f"CQL port {busy_cql_port}:9042 is busy" in text
    assert "nothing was started" in text
    assert _started_nothing(tmp_path)


def test_unknown_command_option_exits_non_zero(tmp_path: Path) -> None:
    result = casslab(tmp_path, "up", "--bogus")
    assert result.returncode != 0
    assert "No such option" in result.stderr
