"""Nodes on other versions from the start (``casslab up --node-version``, ``cluster:
{node_versions: ...}``): the value's forms, the refusals before anything starts (another
major, a node past the cluster, a version not installed) and the stored cluster's check."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from casslab.cluster import cluster_spec, node_versions
from casslab.cluster.local.versions import installed, node_distributions
from casslab.cluster.model import ClusterState, Node, spec_mismatches
from casslab.errors import ConfigError
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.file.existing_checks import existing_problems
from casslab.experiment.file.experiment_model import ClusterSection, Experiment
from casslab.host import jdk
from cli_entry import casslab, flat


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        (["2=5.0.8"], {2: "5.0.8"}),
        (["3=5.0.8", " 1 = 5.0.9"], {1: "5.0.9", 3: "5.0.8"}),
        ({2: "5.0.8"}, {2: "5.0.8"}),
        ({"2": "5.0.8"}, {2: "5.0.8"}),
        ([], {}),
    ],
)
def test_the_forms_of_node_versions(value: object, parsed: dict[int, str]) -> None:
    assert node_versions.parse(value) == parsed


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (["2:5.0.8"], "expected NODE=VERSION, e.g. 2=5.0.8"),
        (["two=5.0.8"], "expected NODE=VERSION"),
        (["2=5.0"], "node 2's version '5.0' is not of the form X.Y.Z"),
        ({0: "5.0.8"}, "0 is not a node number"),
        ("2=5.0.8", "expected NODE: VERSION"),
    ],
)
def test_a_malformed_node_version_names_the_value_and_the_form(value: object, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        node_versions.parse(value)


def test_another_major_is_refused_saying_when_cassandra_mixes_versions() -> None:
    [problem] = node_versions.problems({2: "4.0.11"}, 2, "5.0.9")
    assert problem.startswith("Cassandra 4.0.11 with 5.0.9: Cassandra supports rolling upgrades")
    assert "only between adjacent majors" in problem
    assert "two versions only during one" in problem
    assert node_versions.problems({2: "5.0.8"}, 2, "5.0.9") == []
    assert node_versions.problems({2: "4.0.11"}, 2, "4.1.5") == []


def test_a_node_past_the_cluster_is_refused() -> None:
    [problem] = node_versions.problems({3: "5.0.8"}, 2, "5.0.9")
    assert "names node(s) [3], but the cluster has 2 node(s)" in problem


def test_only_the_nodes_on_another_version_than_the_clusters_are_kept() -> None:
    assert node_versions.differing({1: "5.0.9", 2: "5.0.8"}, "5.0.9") == {2: "5.0.8"}


def test_the_spec_takes_the_options_form() -> None:
    spec = cluster_spec(nodes=2, node_versions=["2=5.0.8"])
    assert spec.node_versions == {2: "5.0.8"}
    assert cluster_spec().node_versions == {}
    with pytest.raises(ValueError, match="expected NODE=VERSION"):
        cluster_spec(nodes=2, node_versions=["2"])


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty Cassandra cache of the test's own, and no CASSANDRA_HOME."""
    monkeypatch.setenv("CASSLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CASSANDRA_HOME", raising=False)
    return tmp_path / "cache"


def _install(cache: Path, version: str) -> Path:
    """What `casslab fetch` leaves: the jar directory and the ``complete`` mark."""
    lib = cache / "cassandra" / version / "lib"
    lib.mkdir(parents=True)
    (lib / f"cassandra-all-{version}.jar").write_bytes(b"")
    (lib.parent / "complete").write_text(version + "\n")
    return lib


def test_a_version_not_installed_is_refused_naming_the_fetch(cache: Path) -> None:
    spec = cluster_spec(name="mix", nodes=2, node_versions=["2=5.0.7"])
    with pytest.raises(ConfigError) as raised:
        node_distributions(spec, "5.0.9", jdk.probe())
    assert str(raised.value) == (
        "--node-version 2=5.0.7: Cassandra 5.0.7 is not installed; `casslab fetch "
        "--version 5.0.7` downloads it (nothing was started)"
    )
    assert not (cache / "cassandra" / "5.0.7").exists()  # nothing was fetched


def test_an_installed_version_gives_its_jars(cache: Path) -> None:
    lib = _install(cache, "5.0.7")
    spec = cluster_spec(name="mix", nodes=3, node_versions=["2=5.0.7", "3=5.0.9"])
    found = node_distributions(spec, "5.0.9", jdk.probe())
    assert list(found) == [2]  # node 3 runs the cluster's own
    assert (found[2].version, found[2].lib_dir) == ("5.0.7", lib)
    assert installed("5.0.6") is None


def test_the_major_is_refused_before_the_jdk_or_the_cache_is_asked(cache: Path) -> None:
    spec = cluster_spec(name="mix", nodes=2, node_versions=["2=4.0.11"])
    with pytest.raises(ConfigError, match="only between adjacent majors"):
        node_distributions(spec, "5.0.9", jdk.probe())


def _state(tmp_path: Path, versions: dict[int, str | None]) -> ClusterState:
    nodes = [
        Node(
            number=n,
            address=f"127.0.0.{n}",
            native_port=9042,
            storage_port=7000,
            jmx_port=7190 + n,
            directory=tmp_path / f"node{n}",
            version=v,
        )
        for n, v in versions.items()
    ]
    return ClusterState(
        spec=cluster_spec(nodes=len(nodes)),
        cassandra_version="5.0.9",
        lib_dir=tmp_path,
        java=tmp_path / "java",
        java_feature=17,
        heap="512M",
        directory=tmp_path,
        nodes=nodes,
        settings={},
        created_at=datetime.now(UTC),
    )


def test_a_stopped_cluster_of_other_node_versions_is_another_cluster(tmp_path: Path) -> None:
    stored = _state(tmp_path, {1: None, 2: "5.0.8"})
    same = cluster_spec(nodes=2, node_versions=["2=5.0.8"])
    assert spec_mismatches(stored, same, frozenset({"node_versions"})) == []
    other = cluster_spec(nodes=2, node_versions=["1=5.0.8"])
    assert spec_mismatches(stored, other, frozenset({"node_versions"})) == [
        "node_versions: asked {1: '5.0.8'}, the stored cluster has {2: '5.0.8'}"
    ]


def test_up_refuses_two_majors_before_anything_starts(tmp_path: Path) -> None:
    done = casslab(tmp_path, "up", "--nodes", "2", "--name", "mix", "--node-version", "2=4.0.11")
    assert done.returncode == 1, done.stdout + done.stderr
    said = flat(done.stderr)
    assert "Error: cluster 'mix': Cassandra 4.0.11 with 5.0.9" in said
    assert "(nothing was started)" in said
    assert not (tmp_path / "clusters" / "mix").exists()


def test_an_experiment_file_gives_node_versions_to_its_trials() -> None:
    experiment = Experiment.model_validate(
        {
            "name": "mixed",
            "cluster": {"nodes": 2, "version": "5.0.9", "node_versions": {2: "5.0.8"}},
            "workload": "write n=100",
            "iterations": 1,
        }
    )
    [trial] = expand(experiment).trials
    assert trial.node_versions == {2: "5.0.8"}
    assert trial.setup.spec_fields()["node_versions"] == {2: "5.0.8"}
    assert "node 2 on 5.0.8" in trial.setup.describe()
    with pytest.raises(ValueError, match=r"node_versions names node\(s\) \[3\], but nodes is 2"):
        ClusterSection.model_validate({"nodes": 2, "node_versions": {3: "5.0.8"}})
    used = {"cluster": {"use": "prod", "node_versions": {2: "5.0.8"}}}
    assert any(
        p.startswith("cluster.node_versions: cluster 'prod'") for p in existing_problems(used)
    )
