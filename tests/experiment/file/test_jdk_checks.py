"""The file's Cassandra versions against the JDK the nodes would run on
(experiment/file/jdk_checks.py), with a real JDK 25 that Cassandra 5.0 cannot run: refused
before anything starts, naming that JDK, the JDKs the version needs and the fix; the JDK
as a factor (``cluster.java_home``), each level checked with every version."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.errors import ExperimentValidationError
from casslab.experiment.file import experiment_loader, jdk_checks

JDK_25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")
JDK_17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")
FILE = """
name: jdks
cluster: {cluster}
{factors}
workload: "write"
measure: "duration=5s"
iterations: 1
"""


@pytest.fixture
def jdk_25(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """JAVA_HOME at the JDK 25 install, the found JDK asked again before and after."""
    if not (JDK_25 / "bin" / "java").is_file():
        pytest.skip(f"no JDK 25 at {JDK_25}")
    monkeypatch.setenv("JAVA_HOME", str(JDK_25))
    jdk_checks._found_jdk.cache_clear()
    yield
    jdk_checks._found_jdk.cache_clear()


def problems_of(cluster: str, factors: str = "") -> list[str]:
    text = textwrap.dedent(FILE.format(cluster=cluster, factors=factors))
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(text, "jdks.yaml")
    return caught.value.problems


def _names_jdk_versions_and_fix(problem: str, version: str) -> None:
    assert f"Cassandra {version} needs JDK 11 or 17" in problem
    assert f"but {JDK_25}/bin/java is Java 25" in problem
    assert "install JDK 17 and point JAVA_HOME at it" in problem


@pytest.mark.usefixtures("jdk_25")
def test_a_version_level_the_jdk_cannot_run_is_refused() -> None:
    [problem] = problems_of("{nodes: 1, heap: 512M}", "factors:\n  cluster.version: [5.0.9]")
    assert problem.startswith("factors.cluster.version[0]: ")
    _names_jdk_versions_and_fix(problem, "5.0.9")
    assert "a 5.0.x level runs on JDK 11 and 17" in problem


@pytest.mark.usefixtures("jdk_25")
def test_the_sections_version_and_node_versions_are_refused_too() -> None:
    problems = problems_of("{nodes: 2, heap: 512M, version: 5.0.9, node_versions: {2: 5.0.8}}")
    assert [p.partition(": ")[0] for p in problems] == [
        "cluster.version",
        "cluster.node_versions.2",
    ]
    _names_jdk_versions_and_fix(problems[0], "5.0.9")
    _names_jdk_versions_and_fix(problems[1], "5.0.8")
    assert "(version 5.0.x runs on JDK 11 and 17)" in problems[0]


@pytest.mark.usefixtures("jdk_25")
def test_a_version_factor_replaces_the_sections_version() -> None:
    data = {"cluster": {"version": "5.0.9"}, "factors": {"cluster.version": ["5.0.8"]}}
    assert jdk_checks.section_version_problems(data) == []  # its levels are checked instead


@pytest.mark.usefixtures("jdk_25")
@pytest.mark.parametrize("where", [{"use": "prod"}, {"hosts": "hosts.yaml"}])
def test_a_cluster_not_started_on_this_machine_is_not_checked_against_its_jdk(
    where: dict[str, str],
) -> None:
    assert jdk_checks.section_version_problems({"cluster": {"version": "5.0.9", **where}}) == []


@pytest.fixture
def jdk_17() -> Path:
    if not (JDK_17 / "bin" / "java").is_file():
        pytest.skip(f"no JDK 17 at {JDK_17}")
    return JDK_17


def test_a_jdk_level_that_cannot_run_the_version_is_refused(jdk_17: Path) -> None:
    factors = f"factors:\n  cluster.java_home: [{jdk_17}, {JDK_25}]"
    if not (JDK_25 / "bin" / "java").is_file():
        pytest.skip(f"no JDK 25 at {JDK_25}")
    [problem] = problems_of("{nodes: 1, heap: 512M, version: 5.0.9}", factors)
    assert problem.startswith("factors.cluster.java_home[1]: Cassandra 5.0.9 needs JDK 11 or 17")
    assert f"but {JDK_25}/bin/java is Java 25" in problem
    assert "install JDK 17 and give its home" in problem


@pytest.mark.usefixtures("jdk_25")
def test_with_a_jdk_factor_the_versions_are_checked_with_its_levels_not_java_home(
    jdk_17: Path,
) -> None:
    """$JAVA_HOME is a JDK 25 here, but every trial runs on the levels' JDK 17."""
    factors = f"factors:\n  cluster.java_home: [{jdk_17}]\n  cluster.version: [5.0.9]"
    text = textwrap.dedent(FILE.format(cluster="{nodes: 1, heap: 512M}", factors=factors))
    experiment = experiment_loader.parse(text, "jdks.yaml")
    assert experiment.factors["cluster.java_home"] == [str(jdk_17)]


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("jdk-17", "expected the absolute path of a JDK's home"),
        ("/nonexistent/jdk", "java_home /nonexistent/jdk has no executable bin/java"),
    ],
)
def test_a_jdk_level_that_is_not_a_jdk_is_named(level: str, expected: str) -> None:
    [problem] = problems_of("{nodes: 1}", f"factors:\n  cluster.java_home: [{level}]")
    assert problem.startswith(f"factors.cluster.java_home[0]: {expected}"), problem


def test_the_sections_jdk_is_checked_with_its_version(jdk_17: Path) -> None:
    if not (JDK_25 / "bin" / "java").is_file():
        pytest.skip(f"no JDK 25 at {JDK_25}")
    [problem] = problems_of(f"{{nodes: 1, version: 5.0.9, java_home: {JDK_25}}}")
    assert problem.startswith("cluster.java_home: Cassandra 5.0.9 needs JDK 11 or 17"), problem
    assert problems_of(f"{{nodes: 1, version: 5.0.9, java_home: {jdk_17}, heap: 1}}") == [
        "cluster.heap: expected a string, got 1"
    ]


def test_the_sections_jdk_is_checked_with_the_default_version_and_node_versions() -> None:
    if not (JDK_25 / "bin" / "java").is_file():
        pytest.skip(f"no JDK 25 at {JDK_25}")
    from casslab.cluster.distribution import DEFAULT_VERSION

    problems = problems_of(f"{{nodes: 2, java_home: {JDK_25}, node_versions: {{2: 5.0.8}}}}")
    assert [p.partition(" needs")[0] for p in problems] == [
        f"cluster.java_home: Cassandra {DEFAULT_VERSION}",
        "cluster.java_home: Cassandra 5.0.8",
    ]
