"""Class-data sharing of the nodes' classes: which flags a node gets (none when its JVM
options hook class loading at start), the archive's key, and a real archive built by this
machine's JDK from a class list and mapped by a JVM."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from casslab.cluster import class_share, cluster_spec
from casslab.cluster.local import launch
from casslab.host import jdk, jfr
from fakes import Calls, FakeCluster

JAVA = shutil.which("java")
needs_java = pytest.mark.skipif(JAVA is None, reason="no java on PATH")


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CASSLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(class_share.ENV, raising=False)


def _lib(tmp_path: Path, jars: dict[str, int]) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir(exist_ok=True)
    for name, size in jars.items():
        (lib / name).write_bytes(b"x" * size)
    return lib


@needs_java
@pytest.mark.parametrize(
    ("env", "feature", "shared"),
    [(None, 17, True), (None, 11, True), (None, 8, False), ("0", 17, False), ("off", 17, False)],
)
def test_sharing_is_on_from_jdk_11_unless_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: str | None, feature: int, shared: bool
) -> None:
    if env is not None:
        monkeypatch.setenv(class_share.ENV, env)
    share = class_share.for_install(Path(str(JAVA)), feature, _lib(tmp_path, {"a.jar": 1}))
    assert (share is not None) == shared


@needs_java
def test_the_key_follows_the_jars(tmp_path: Path) -> None:
    java = Path(str(JAVA))
    lib = _lib(tmp_path, {"a.jar": 10, "b.jar": 20})
    first = class_share.install_key(java, lib)
    assert first is not None
    assert class_share.install_key(java, lib) == first
    (lib / "b.jar").write_bytes(b"y" * 21)  # another build of a jar
    assert class_share.install_key(java, lib) != first
    (lib / "c.jar").write_bytes(b"z")
    assert len({first, class_share.install_key(java, lib)}) == 2


def test_a_java_outside_a_jdk_has_no_key(tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "java"
    fake.parent.mkdir()
    fake.write_text("")
    assert class_share.install_key(fake, _lib(tmp_path, {})) is None


def test_node_flags_map_the_archive_or_dump_the_class_list(tmp_path: Path) -> None:
    share = class_share.ClassShare(directory=tmp_path / "share")
    logs = tmp_path / "node1" / "logs"
    assert class_share.node_flags(None, logs) == []
    assert class_share.node_flags(share, logs) == [
        f"-XX:DumpLoadedClassList={logs / class_share.NODE_CLASS_LIST}"
    ]
    share.directory.mkdir()
    share.archive.write_bytes(b"archive")
    assert class_share.node_flags(share, logs) == [
        f"-XX:SharedArchiveFile={share.archive}",
        "-Xshare:auto",
    ]


@pytest.mark.parametrize(
    ("text", "whole"),
    [("", ""), ("java/lang/Object", ""), ("a\nb\nc", "a\nb\n"), ("a\nb\n", "a\nb\n")],
)
def test_only_whole_lines_of_a_growing_class_list_are_archived(text: str, whole: str) -> None:
    assert class_share.complete_lines(text) == whole


@needs_java
def test_a_class_list_becomes_an_archive_that_a_jvm_maps(tmp_path: Path) -> None:
    java = Path(str(JAVA))
    feature = jdk.probe(java).feature
    lib = _lib(tmp_path, {})
    share = class_share.for_install(java, max(feature, 11), lib)
    assert share is not None
    logs = tmp_path / "node1" / "logs"
    logs.mkdir(parents=True)
    # as a running JVM leaves it: the last line still being written
    (logs / class_share.NODE_CLASS_LIST).write_text(
        "java/lang/Object id: 0\njava/util/ArrayList id: 1\njava/util/concurrent/Concurr"
    )
    built = class_share.build_after_start(share, java, f"{lib}/*", [], [logs])
    assert built
    assert share.archive.is_file()
    assert "Concurr" not in share.class_list.read_text()
    assert not (logs / class_share.NODE_CLASS_LIST).exists()
    # -Xshare:on fails when the archive cannot be mapped
    result = subprocess.run(
        [str(java), *class_share.node_flags(share, logs)[:1], "-Xshare:on", "-version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    # a second build finds the archive and does nothing
    (logs / class_share.NODE_CLASS_LIST).write_text("java/lang/Object id: 0\n")
    assert not class_share.build_after_start(share, java, f"{lib}/*", [], [logs])


@needs_java
def test_a_failed_build_leaves_no_archive(tmp_path: Path) -> None:
    java = Path(str(JAVA))
    share = class_share.for_install(java, 17, _lib(tmp_path, {}))
    assert share is not None
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / class_share.NODE_CLASS_LIST).write_text("java/lang/Object id: 0\n")
    assert not class_share.build_after_start(
        share, java, f"{tmp_path}/*", ["-XX:NoSuchFlag"], [logs]
    )
    assert not share.archive.exists()
    assert list(share.directory.glob(".cassandra.jsa.*")) == []


@pytest.mark.parametrize(
    ("options", "hooked"),
    [
        ((), None),
        (("-Dcassandra.ring_delay_ms=5000", "-XX:+UseNUMA"), None),
        ((jfr.AT_BOOT,), jfr.AT_BOOT),
        (("-XX:+FlightRecorder",), "-XX:+FlightRecorder"),
        (("-Da=1", "-javaagent:/opt/agent.jar"), "-javaagent:/opt/agent.jar"),
        (
            ("-agentpath:/opt/libasyncProfiler.so=start",),
            "-agentpath:/opt/libasyncProfiler.so=start",
        ),
        (("-agentlib:jdwp=transport=dt_socket",), "-agentlib:jdwp=transport=dt_socket"),
    ],
)
def test_options_that_hook_class_loading_at_start(
    options: tuple[str, ...], hooked: str | None
) -> None:
    assert class_share.hooked_option(options) == hooked


@needs_java
def test_a_node_with_flight_recorder_at_boot_maps_no_archive(tmp_path: Path) -> None:
    """Such a node crashed on the archive (JDK 17.0.15); it starts without one, and without
    writing a class list for one."""
    lib = _lib(tmp_path, {"cassandra.jar": 10})
    plain = FakeCluster(cluster_spec(name="plain"), tmp_path, Calls()).state
    plain = plain.model_copy(update={"java": Path(str(JAVA)), "lib_dir": lib})
    [node] = plain.nodes
    assert launch.node_share(plain, node) is not None
    booted = plain.model_copy(update={"spec": cluster_spec(name="p", jvm_options=(jfr.AT_BOOT,))})
    assert launch.node_share(booted, node) is None
    command = launch.node_command(booted, node, class_share.node_flags(None, node.logs_dir))
    assert jfr.AT_BOOT in command
    assert not any(flag.startswith(("-XX:SharedArchiveFile", "-XX:DumpLoaded")) for flag in command)
