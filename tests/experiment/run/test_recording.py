"""The cluster recording's life cycle with literal sources: opened once and warmed, sampled
only inside measured phases, kept across trials, closed when the nodes restart."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from casslab.errors import MetricsError
from casslab.experiment.design.cluster_setup import ClusterAction
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import events
from casslab.experiment.run.recording import ClusterRecording, LazyRecording
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions
from casslab.metrics.source import Sample
from casslab.metrics.store import load
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialStatus
from fakes import Calls, fake_factory, install_fake_engine


class FakeSource:
    """A source that answers one sample per call and notes its calls and its closing."""

    def __init__(
        self, node: str, metric: str = "cassandra.sstables", log: list[Any] | None = None
    ) -> None:
        self._node = node
        self._metric = metric
        self._log: list[Any] = log if log is not None else []
        self.times: list[float] = []
        self.closed = False

    @property
    def name(self) -> str:
        return "literal"

    @property
    def node(self) -> str:
        return self._node

    def sample(self, now: float) -> list[Sample]:
        self.times.append(now)
        return [Sample(now, self._node, self._metric, float(len(self.times)))]

    def close(self) -> None:
        self.closed = True
        self._log.append(("close", self._node))


def _wait_for(condition: Any, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not met within the deadline"
        time.sleep(0.01)


def test_open_warms_every_source_once_and_nothing_is_sampled_between_phases() -> None:
    node = FakeSource("n1")
    recording = ClusterRecording.open(object(), lambda _c, _p: [node], interval_s=0.05)  # type: ignore[arg-type]
    assert len(node.times) == 1  # the warm-up sample, discarded
    time.sleep(0.2)
    assert len(node.times) == 1  # no thread runs outside a phase
    recording.close()
    assert node.closed


def test_two_phases_share_the_node_sources_and_write_their_own_files(tmp_path: Path) -> None:
    node = FakeSource("n1")
    engines: list[FakeSource] = []

    def engine_source(pid: int) -> FakeSource:
        engines.append(FakeSource("engine", "engine.rss_bytes"))
        return engines[-1]

    recording = ClusterRecording([node], interval_s=0.05, engine_source=engine_source)
    for phase_number in (1, 2):
        out = tmp_path / f"trial{phase_number}" / "metrics.parquet"
        before = len(node.times)
        with recording.measure_phase(out) as phase:
            phase.add_engine(os.getpid())
            _wait_for(lambda: len(engines[-1].times) >= 4)
        assert not node.closed  # kept for the next phase
        assert engines[-1].closed  # the engine's sampler goes with its phase
        frame = load(out)
        assert set(frame.node) == {"n1", "engine"}
        # the first instant of a phase is read and discarded: rates start afresh
        assert len(frame[frame.node == "n1"]) == len(node.times) - before - 1
        assert frame.time.min() > node.times[before]
    assert recording.phases == 2
    recording.close()
    assert node.closed
    with (
        pytest.raises(MetricsError, match="closed cluster recording"),
        recording.measure_phase(tmp_path / "late.parquet"),
    ):
        pass


def test_a_phase_inside_a_phase_is_refused(tmp_path: Path) -> None:
    recording = ClusterRecording([FakeSource("n1")], interval_s=0.05)
    with (
        recording.measure_phase(tmp_path / "a.parquet"),
        pytest.raises(MetricsError, match="already in a phase"),
        recording.measure_phase(tmp_path / "b.parquet"),
    ):
        pass
    recording.close()


@dataclass
class Node:
    address: str
    pid: int | None
    jmx_port: int


@dataclass
class Nodes:
    """Just what the recording reads of a cluster: its nodes."""

    nodes: list[Node] = field(default_factory=lambda: [Node("127.0.220.1", 100, 8801)])


def test_lazy_recording_reopens_when_the_nodes_pids_change() -> None:
    made: list[FakeSource] = []

    def factory(_cluster: Any, engine_pid: int | None) -> list[FakeSource]:
        assert engine_pid is None  # only the nodes' samplers: the engine comes per phase
        made.append(FakeSource(f"set{len(made)}"))
        return [made[-1]]

    lazy = LazyRecording(factory, interval_s=0.05)
    cluster = Nodes()
    first = lazy.of(cluster)  # type: ignore[arg-type]
    assert lazy.of(cluster) is first  # type: ignore[arg-type]
    cluster.nodes[0].pid = 200  # e.g. the restart reset policy restarted the node
    second = lazy.of(cluster)  # type: ignore[arg-type]
    assert second is not first
    assert first.closed
    assert made[0].closed
    lazy.close()
    assert second.closed
    assert made[1].closed
    lazy.close()  # twice is fine
    assert lazy.opened == 2


# ---------------------------------------------------------------- in the runner


def _runner(tmp_path: Path, experiment: Experiment, calls: Calls, factory: Any) -> Runner:
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir(exist_ok=True)
    options = RunnerOptions(
        results_root=tmp_path,
        jvm_warmup_s=0,
        write_report=False,
        cluster_root=tmp_path / "c",
        metrics_interval_s=0.05,
    )
    seen: list[events.Event] = []
    return Runner(
        experiment,
        layout,
        options,
        on_event=seen.append,
        create_cluster=fake_factory(calls),
        metrics_sources=factory,
    )


def test_one_recording_across_trials_closed_at_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_fake_engine(tmp_path, monkeypatch)
    calls = Calls()
    opened: list[FakeSource] = []

    def factory(_cluster: Any, engine_pid: int | None) -> list[FakeSource]:
        assert engine_pid is None
        opened.append(FakeSource(f"127.0.0.{len(opened) + 1}", log=calls.log))
        calls.log.append(("recording opened", len(opened)))
        return [opened[-1]]

    experiment = Experiment.model_validate(
        {
            "name": "rec",
            "workload": "write",
            "measure": "duration=2s -rate threads=4",
            "iterations": 2,
            "order": "sequential",
            "factors": {"config.concurrent_compactors": [1, 2]},
        }
    )
    runner = _runner(tmp_path, experiment, calls, factory)
    runner.run()
    # four trials: two on the first setting, then a restart, two on the second
    assert len(opened) == 2
    log = calls.log
    names = calls.names()
    first, second = log.index(("close", "127.0.0.1")), log.index(("close", "127.0.0.2"))
    assert first < names.index("restart") < second
    assert names.count("recording opened") == 2
    assert all(source.closed for source in opened)
    assert second < names.index("destroy")  # closed before the nodes go
    results = [runner.layout.trial_summary(t.cell_id, t.iteration) for t in runner.plan.trials]
    for trial, path in zip(runner.plan.trials, results, strict=True):
        assert TrialStatus.OK.value in path.read_text()
        load(runner.layout.metrics_parquet(trial.cell_id, trial.iteration))  # one per phase
    assert runner._recording.current is None  # closed at the end of the run


def test_recording_is_closed_when_the_cluster_is_recreated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_fake_engine(tmp_path, monkeypatch)
    calls = Calls()
    opened: list[FakeSource] = []

    def factory(_cluster: Any, _pid: int | None) -> list[FakeSource]:
        opened.append(FakeSource("n", log=calls.log))
        return [opened[-1]]

    experiment = Experiment.model_validate(
        {
            "name": "rec2",
            "workload": "write",
            "measure": "duration=2s -rate threads=4",
            "iterations": 1,
            "order": "sequential",
            "factors": {"nodes": [1, 2]},
        }
    )
    seen: list[events.Event] = []
    runner = _runner(tmp_path, experiment, calls, factory)
    runner._emit = seen.append  # to see the cluster actions
    runner.run()
    actions = [e.action for e in seen if isinstance(e, events.ClusterChanged)]
    assert actions == [ClusterAction.START, ClusterAction.RECREATE]
    names = calls.names()
    assert names.index("close") < names.index("destroy")
    assert len(opened) == 2
    assert all(s.closed for s in opened)
