"""The fault-kind seam: a kind defined only here, one folder's worth of code and one
``register`` line, is read from the file's ``faults:``, checked by ``casslab plan`` and
run on the trial's timeline by ``casslab run`` (the fake engine, a fake cluster) without
any change to the experiment, the runner or the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import ConfigDict, Field
from typer.testing import CliRunner

from casslab.cli.main import app
from casslab.cluster import Cluster, ClusterSpec
from casslab.cluster.model import BackendKind
from casslab.cluster.registry import BACKENDS
from casslab.errors import ConfigError
from casslab.experiment.run import recording
from casslab.faults import fault_kinds, timeline
from casslab.faults.fault_kind import FileFacts, Target, Undo
from casslab.faults.model import Fault
from casslab.record import Record
from fakes import FakeBackend, FakeCluster, install_fake_engine

EXPERIMENT = """
name: marker-seam
workload: write
measure: "n=20"
iterations: 1
faults:
  - {at: 0s, kind: marker, target: 1, for: 1s, label: here}
"""


class MarkerFields(Record):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    label: str = Field(min_length=1)


@dataclass
class MarkerFault:
    """``kind: marker``: does nothing to the node; notes when it began and ended."""

    name: str = "marker"
    fields: type[Record] = MarkerFields
    target: Target = Target.NODE
    marks_down: bool = False
    ends_jvm: bool = False
    steps_clock: bool = False
    reshapes_cluster: bool = False
    ends_when_done: bool = False
    done: list[str] = field(default_factory=list)

    def describe(self, fields: Record) -> str:
        return f" labelled {fields.label}" if isinstance(fields, MarkerFields) else ""

    def file_problems(self, index: int, fault: Fault, facts: FileFacts) -> list[str]:
        label = fault.fields.label if isinstance(fault.fields, MarkerFields) else ""
        return [f"faults[{index}]: a marker may not say {label!r}"] if label == "nope" else []

    def check(self, cluster: Cluster, fault: Fault) -> None:
        if not cluster.nodes:
            raise ConfigError(f"cluster {cluster.name!r} has no node to mark")

    def begin(self, cluster: Cluster, fault: Fault) -> Undo:
        self.done.append(f"begin {fault.describe()}")
        return len(self.done)

    def end(self, cluster: Cluster, fault: Fault, undo: Undo, timeout_s: float) -> None:
        self.done.append(f"end {fault.target} (undo {undo})")


class NoHints:
    """The hint tally of a cluster without JMX: nothing read, nothing counted."""

    def __init__(self, cluster: Cluster) -> None:
        pass

    def start(self) -> None:
        pass

    def checkpoint(self, number: int) -> None:
        pass

    def stop(self) -> None:
        return None


@pytest.fixture
def marker() -> Iterator[MarkerFault]:
    kind = MarkerFault()
    fault_kinds.register(kind)  # the one registration line a kind needs
    yield kind
    fault_kinds.FAULT_KINDS.pop("marker")


def test_a_fault_kind_defined_here_is_planned_and_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: MarkerFault
) -> None:
    install_fake_engine(tmp_path, monkeypatch)
    monkeypatch.setitem(BACKENDS, BackendKind.LOCAL, FakeBackend)
    monkeypatch.setattr(recording, "default_sources", lambda _cluster, _pid=None: [])
    monkeypatch.setenv("CASSLAB_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FAKE_ENGINE_INTERVAL_S", "0.5")  # the measured phase lasts 1 s
    monkeypatch.setattr(timeline, "HintTally", NoHints)  # a fake cluster has no JMX
    file = tmp_path / "marker.yaml"
    file.write_text(EXPERIMENT, encoding="utf-8")
    results = tmp_path / "results"

    planned = CliRunner().invoke(app, ["plan", str(file)])
    assert planned.exit_code == 0, planned.output
    ran = CliRunner().invoke(
        app, ["run", str(file), "--results", str(results), "--jvm-warmup", "0"]
    )

    assert ran.exit_code == 0, ran.output
    assert marker.done == ["begin marker node 1 labelled here at 0 s for 1 s", "end 1 (undo 1)"]
    [faults_json] = results.glob("marker-seam/*/trials/*/*/faults.json")
    document = json.loads(faults_json.read_text())
    [record] = document["faults"]
    assert (record["kind"], record["target"], record["fields"]) == ("marker", 1, {"label": "here"})
    assert record["began_s"] is not None
    assert record["ended_s"] is not None
    assert [w["kind"] for w in document["windows"]] == ["marker"]


def test_plan_refuses_what_the_kind_refuses(tmp_path: Path, marker: MarkerFault) -> None:
    """The kind's own fields and its file check speak through ``casslab plan``."""
    file = tmp_path / "marker.yaml"
    file.write_text(EXPERIMENT.replace("label: here", "label: nope"), encoding="utf-8")
    refused = CliRunner().invoke(app, ["plan", str(file)])
    assert refused.exit_code != 0
    assert "faults[0]: a marker may not say 'nope'" in str(refused.exception)
    file.write_text(EXPERIMENT.replace(", label: here", ", rate: 1MiB/s"), encoding="utf-8")
    refused = CliRunner().invoke(app, ["plan", str(file)])
    assert "rate and iops are for slow-disk faults, not marker" in str(refused.exception)
    assert marker.done == []


def test_an_unregistered_kind_is_named_with_the_known_ones(marker: MarkerFault) -> None:
    with pytest.raises(ConfigError, match=r"'markr' is not known \(did you mean 'marker'"):
        fault_kinds.fault_kind("markr")
    with pytest.raises(ValueError, match=r"'slow-disk', 'restart', .* or 'marker'"):
        Fault.model_validate({"at": 0, "kind": "mark", "target": 1, "for": 1})


def test_a_kind_that_reshapes_the_cluster_gives_the_next_trial_a_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: MarkerFault
) -> None:
    """After a trial whose timeline upgraded the nodes or changed them (upgrade, add-node,
    decommission, replace), the next trial runs on a cluster made anew from its setup."""
    install_fake_engine(tmp_path, monkeypatch)
    created: list[str] = []

    class Counting(FakeBackend):
        @classmethod
        def create(cls, spec: ClusterSpec, root: Path | None = None, **_: Any) -> FakeCluster:
            created.append(spec.name)
            return super().create(spec, root)

    monkeypatch.setitem(BACKENDS, BackendKind.LOCAL, Counting)
    monkeypatch.setattr(recording, "default_sources", lambda _cluster, _pid=None: [])
    monkeypatch.setenv("CASSLAB_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FAKE_ENGINE_INTERVAL_S", "0.5")
    monkeypatch.setattr(timeline, "HintTally", NoHints)
    file = tmp_path / "marker.yaml"
    file.write_text(EXPERIMENT.replace("iterations: 1", "iterations: 3"), encoding="utf-8")
    for reshapes, clusters in ((False, 1), (True, 3)):
        marker.reshapes_cluster = reshapes
        created.clear()
        results = tmp_path / f"results-{reshapes}"
        ran = CliRunner().invoke(
            app, ["run", str(file), "--results", str(results), "--jvm-warmup", "0"]
        )
        assert ran.exit_code == 0, ran.output
        assert len(created) == clusters, (reshapes, created)
