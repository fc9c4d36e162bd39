"""``cluster.version`` and ``cluster.heap`` as factors (experiment/file/file_checks.py): each
level checked before anything starts, settings against every version's catalogue."""

from __future__ import annotations

import textwrap

import pytest

from casslab.errors import ExperimentValidationError
from casslab.experiment.file import experiment_loader, file_checks
from casslab.host import jdk

BASE = """
name: versions
cluster: {{nodes: 1, heap: 512M}}
factors:
  {factors}
workload: "write"
measure: "duration=5s"
iterations: 1
"""


def problems_of(factors: str) -> list[str]:
    text = textwrap.dedent(BASE.format(factors=factors))
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(text, "versions.yaml")
    return caught.value.problems


def test_malformed_version_and_heap_levels_are_named() -> None:
    problems = problems_of('cluster.version: [5.0.9, "5.0", 7]\n  cluster.heap: [512M, 1X]')
    assert problems == [
        "factors.cluster.version[1]: expected a Cassandra version like 5.0.8, got '5.0'",
        "factors.cluster.version[2]: expected a Cassandra version like 5.0.8, got 7",
        "factors.cluster.heap[1]: expected a heap size like 512M or 1G, got '1X'",
    ]


def test_a_version_the_jdk_cannot_run_is_refused_with_the_jdk_to_install() -> None:
    java = jdk.probe()
    if java.feature not in (17, 21):
        pytest.skip(f"this JDK ({java.feature}) runs Cassandra 4.0")
    [problem] = problems_of("cluster.version: [4.0.11, 5.0.9]")
    assert problem.startswith("factors.cluster.version[0]: Cassandra 4.0.11 needs JDK 8 or 11")
    assert "install JDK 11" in problem
    assert "a 5.0.x level" in problem


def test_settings_are_checked_against_each_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """A problem every version has is said once; one that only some have names them."""
    known = {"5.0.8": {"a"}, "5.0.9": {"a", "b"}}

    def fake(settings: dict[str, object], version: str | None) -> list[str]:
        return [f"{key}: unknown setting" for key in settings if key not in known[version or ""]]

    monkeypatch.setattr(file_checks, "settings_problems", fake)
    problems = file_checks.settings_problems_all({"a": 1, "b": 2, "c": 3}, ["5.0.8", "5.0.9"])
    assert problems == ["b: unknown setting (Cassandra 5.0.8)", "c: unknown setting"]


def test_the_versions_a_file_runs() -> None:
    assert file_checks.versions_of({"cluster": {"version": "5.0.8"}}) == ["5.0.8"]
    assert file_checks.versions_of({}) == [None]
    data = {"cluster": {"version": "5.0.8"}, "factors": {"cluster.version": ["5.0.9", "5.0.8"]}}
    assert file_checks.versions_of(data) == ["5.0.9", "5.0.8"]


def test_an_unknown_collector_is_named() -> None:
    assert problems_of("cluster.gc: [G1, cms]") == [
        "factors.cluster.gc[1]: gc 'cms': expected one of G1, ZGC, Shenandoah, Parallel "
        "(G1 is Cassandra's default)"
    ]


def test_a_preset_level_is_a_preset_that_every_version_of_the_file_has() -> None:
    assert problems_of("cluster.preset: [default, newest]") == [
        "factors.cluster.preset[1]: settings preset 'newest': casslab knows default, latest "
        "(default: cassandra.yaml as casslab renders it; latest: what Cassandra 5.0's "
        "cassandra_latest.yaml changes)"
    ]
    mixed = problems_of("cluster.preset: [latest]\n  cluster.version: [5.0.9, 4.0.11]")
    assert (  # (the JDK may refuse 4.0.11 too: a problem of the version's level)
        "factors.cluster.preset[0]: preset latest: Cassandra 4.0.11 has no "
        "cassandra_latest.yaml (it came with 5.0); use preset default, or a 5.0 version"
    ) in mixed
    assert not [p for p in mixed if p.startswith("factors.cluster.preset") and "5.0.9" in p]
    text = textwrap.dedent(BASE.format(factors="nodes: [1]")).replace(
        "{nodes: 1, heap: 512M}", "{nodes: 1, heap: 512M, version: 4.0.11, preset: latest}"
    )
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(text, "versions.yaml")
    assert any(
        p.startswith("cluster.preset: preset latest: Cassandra 4.0.11")
        for p in caught.value.problems
    )
