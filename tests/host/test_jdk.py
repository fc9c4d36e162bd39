from __future__ import annotations

from pathlib import Path

import pytest

from casslab.errors import SetupError
from casslab.host.jdk import Jdk, check_supported, find_java, parse_java_version


@pytest.mark.parametrize(
    ("text", "version", "feature"),
    [
        ('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime', "17.0.15", 17),
        ('openjdk version "11.0.22" 2024-01-16', "11.0.22", 11),
        ('java version "1.8.0_392"', "1.8.0_392", 8),
        ('openjdk version "21" 2023-09-19', "21", 21),
        ('openjdk version "25-ea" 2025', "25-ea", 25),
    ],
)
def test_parse_java_version(text: str, version: str, feature: int) -> None:
    assert parse_java_version(text) == (version, feature)


def test_parse_java_version_rejects_garbage() -> None:
    with pytest.raises(SetupError, match="cannot read the Java version"):
        parse_java_version("command not found")


@pytest.mark.parametrize(
    ("feature", "cassandra", "ok"),
    [
        (17, "5.0.9", True),
        (11, "5.0.4", True),
        (21, "5.0.9", False),
        (17, "4.1.5", False),
        (11, "4.1.5", True),
        (8, "5.0.1", False),
    ],
)
def test_check_supported(feature: int, cassandra: str, ok: bool) -> None:
    found = Jdk(java=Path("/usr/bin/java"), version=str(feature), feature=feature)
    if ok:
        check_supported(found, cassandra)
    else:
        with pytest.raises(SetupError, match=f"Cassandra {cassandra} needs JDK"):
            check_supported(found, cassandra)


def test_unknown_series_is_named() -> None:
    found = Jdk(java=Path("/usr/bin/java"), version="17", feature=17)
    with pytest.raises(SetupError, match=r"3\.11\.9 is not a series"):
        check_supported(found, "3.11.9")


def test_missing_java_says_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(SetupError, match="no java on PATH"):
        find_java(path=str(tmp_path), java_home="")


def test_bad_java_home_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SetupError, match=f"java_home {tmp_path} has no executable bin/java"):
        find_java(java_home=str(tmp_path))
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(SetupError, match=f"JAVA_HOME={tmp_path} has no executable bin/java"):
        find_java()
