"""The trial runner's decisions on a fake cluster and a fake engine: restarts, resets,
resume, one failing trial, Ctrl-C, and the engine's check before the first trial."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from casslab.analysis.run_frames import trials_frame
from casslab.cluster import ClusterSpec, ResetMode
from casslab.errors import ExperimentError
from casslab.experiment.design.cluster_setup import ClusterAction
from casslab.experiment.design.stored_plan import stored_plan
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import events
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions, resume_command
from casslab.host import jfr
from casslab.store.layout import RunLayout
from casslab.store.run_data import read_run
from casslab.store.run_records import TrialStatus, read_manifest, read_trial_result
from fakes import Calls, engine_runs, fake_factory, install_fake_engine
from jit import C1_ONLY


def _experiment(**fields: Any) -> Experiment:
    base: dict[str, Any] = {
        "name": "unit",
        "workload": "write",
        "measure": "duration=2s -rate threads=4",
        "iterations": 2,
        "order": "sequential",
    }
    return Experiment.model_validate({**base, **fields})


def _runner(
    tmp_path: Path, experiment: Experiment, calls: Calls, seen: list[events.Event]
) -> Runner:
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir(exist_ok=True)
    options = RunnerOptions(
        results_root=tmp_path, jvm_warmup_s=0, write_report=False, cluster_root=tmp_path / "c"
    )
    return Runner(
        experiment,
        layout,
        options,
        on_event=seen.append,
        create_cluster=fake_factory(calls),
        metrics_sources=lambda _cluster, _pid: [],
    )


@pytest.fixture
def engine_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return install_fake_engine(tmp_path, monkeypatch)


def _actions(seen: list[events.Event]) -> list[tuple[str, ClusterAction]]:
    return [(e.trial.trial_id, e.action) for e in seen if isinstance(e, events.ClusterChanged)]


def test_settings_change_restarts_and_node_count_recreates(
    tmp_path: Path, engine_log: Path
) -> None:
    calls, seen = Calls(), []
    experiment = _experiment(
        factors={"config.concurrent_compactors": [1, 2], "nodes": [1, 3]}, iterations=1
    )
    _runner(tmp_path, experiment, calls, seen).run()
    plan_order = [
        "concurrent_compactors=1,nodes=1/1",
        "concurrent_compactors=1,nodes=3/1",
        "concurrent_compactors=2,nodes=1/1",
        "concurrent_compactors=2,nodes=3/1",
    ]
    assert _actions(seen) == [
        (plan_order[0], ClusterAction.START),
        (plan_order[1], ClusterAction.RECREATE),
        (plan_order[2], ClusterAction.RECREATE),
        (plan_order[3], ClusterAction.RECREATE),
    ]
    creates = [arg for name, arg in calls.log if name == "create"]
    assert creates == [
        (1, {"concurrent_compactors": 1}),
        (3, {"concurrent_compactors": 1}),
        (1, {"concurrent_compactors": 2}),
        (3, {"concurrent_compactors": 2}),
    ]
    assert calls.names().count("destroy") == 4  # three recreations and the end of the run


def test_same_shape_other_settings_restart_in_place(tmp_path: Path, engine_log: Path) -> None:
    calls, seen = Calls(), []
    experiment = _experiment(factors={"config.concurrent_compactors": [1, 2]}, iterations=2)
    _runner(tmp_path, experiment, calls, seen).run()
    assert [a for _, a in _actions(seen)] == [ClusterAction.START, ClusterAction.RESTART]
    assert ("restart", {"concurrent_compactors": 2}) in calls.log
    assert calls.names().count("create") == 1
    # the plan's restart flags say the same as what the runner did
    flagged = [t.trial_id for t in _runner(tmp_path, experiment, Calls(), []).plan.trials]
    restarts = [
        t.trial_id for t in _runner(tmp_path, experiment, Calls(), []).plan.trials if t.restart
    ]
    assert restarts == [flagged[0], flagged[2]] == [tid for tid, _ in _actions(seen)]


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("truncate", ("reset", ResetMode.TRUNCATE)),
        ("recreate", ("reset", ResetMode.DROP)),
        ("restart", ("wipe", None)),
    ],
)
def test_reset_policy_between_trials_on_a_running_cluster(
    tmp_path: Path, engine_log: Path, policy: str, expected: tuple[str, Any]
) -> None:
    calls, seen = Calls(), []
    _runner(tmp_path, _experiment(reset=policy, iterations=3), calls, seen).run()
    resets = [entry for entry in calls.log if entry[0] in ("reset", "wipe")]
    assert resets == [expected, expected]  # not before the first trial: its cluster is new


def test_schema_gets_the_experiment_replication_and_table_options(
    tmp_path: Path, engine_log: Path
) -> None:
    calls, seen = Calls(), []
    experiment = _experiment(
        iterations=1,
        schema={"replication": {"class": "SimpleStrategy", "replication_factor": 3}},
        factors={"table.compaction": ["LeveledCompactionStrategy"]},
    )
    _runner(tmp_path, experiment, calls, seen).run()
    keyspace = [s for s in calls.statements if s.startswith("CREATE KEYSPACE")]
    assert keyspace == [
        'CREATE KEYSPACE IF NOT EXISTS "keyspace1" WITH replication = '
        "{'class': 'SimpleStrategy', 'replication_factor': '3'}"
    ]
    assert any(
        s.startswith("ALTER TABLE ")
        and "standard1 WITH compaction = " in s
        and "LeveledCompactionStrategy" in s
        for s in calls.statements
    ), calls.statements


def test_a_failing_trial_is_recorded_and_the_run_goes_on(
    tmp_path: Path, engine_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_ENGINE_FAIL_SEEDS", "1")  # the measured phase of iteration 1
    calls, seen = Calls(), []
    runner = _runner(tmp_path, _experiment(iterations=3), calls, seen)
    runner.run()
    results = {e.trial.trial_id: e.result for e in seen if isinstance(e, events.TrialFinished)}
    assert [r.status for r in results.values()] == [
        TrialStatus.FAILED,
        TrialStatus.OK,
        TrialStatus.OK,
    ]
    assert "fake failure" in (results["baseline/1"].error or "")
    assert runner.finished_trials() == {"baseline/2", "baseline/3"}


def test_resume_runs_only_what_is_left(
    tmp_path: Path, engine_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_ENGINE_FAIL_SEEDS", "2")
    _runner(tmp_path, _experiment(iterations=3), Calls(), []).run()
    assert [r["seed"] for r in engine_runs(engine_log)] == [1, 2, 3]
    monkeypatch.delenv("FAKE_ENGINE_FAIL_SEEDS")
    calls, seen = Calls(), []
    resumed = _runner(tmp_path, _experiment(iterations=3), calls, seen)
    resumed.run()
    assert [r["seed"] for r in engine_runs(engine_log)] == [1, 2, 3, 2]
    started = next(e for e in seen if isinstance(e, events.RunStarted))
    assert (started.total, started.pending) == (3, 1)
    assert resumed.finished_trials() == {"baseline/1", "baseline/2", "baseline/3"}


def test_ctrl_c_keeps_finished_trials_and_stops_the_cluster(
    tmp_path: Path, engine_log: Path
) -> None:
    calls, seen = Calls(), []
    calls.fail_restart_with = KeyboardInterrupt()
    experiment = _experiment(factors={"config.concurrent_compactors": [1, 2]}, iterations=1)
    runner = _runner(tmp_path, experiment, calls, seen)
    with pytest.raises(KeyboardInterrupt):
        runner.run()
    assert runner.finished_trials() == {"concurrent_compactors=1/1"}
    assert calls.names()[-1] == "destroy"  # the run's own cluster does not outlive it
    manifest = runner.layout.manifest.read_text()
    assert '"ended_at": null' not in manifest


def test_a_spec_the_engine_rejects_fails_before_any_trial(
    tmp_path: Path, engine_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_ENGINE_REJECT", "counter_write")
    calls, seen = Calls(), []
    experiment = _experiment(factors={"workload": ["write", "counter_write"]}, iterations=1)
    with pytest.raises(ExperimentError, match="the load engine rejects it: fake rejection"):
        _runner(tmp_path, experiment, calls, seen).run()
    assert calls.log == []
    assert engine_runs(engine_log) == []


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (RunnerOptions(experiment_file=Path("e.yaml")), "casslab run e.yaml --resume-dir r/1"),
        (
            RunnerOptions(
                experiment_file=Path("my exp.yaml"),
                base_address="127.0.1.1",
                jvm_warmup_s=0,
                keep_cluster=True,
            ),
            "casslab run 'my exp.yaml' --resume-dir r/1 --base-address 127.0.1.1 "
            "--jmx-port-base 7190 --jvm-warmup 0 --keep-cluster",
        ),
    ],
)
def test_resume_command_repeats_the_options_that_differ(
    options: RunnerOptions, expected: str
) -> None:
    assert resume_command(options, Path("r/1")) == expected


def test_preload_runs_once_per_data_and_later_trials_restore_it(
    tmp_path: Path, engine_log: Path
) -> None:
    calls, seen = Calls(), []
    experiment = _experiment(
        preload="write n=100",
        factors={"table.compaction": ["STCS", "LCS"]},
        iterations=2,
        reset="recreate",
    )
    _runner(tmp_path, experiment, calls, seen).run()
    data = [(name, arg) for name, arg in calls.log if name in ("capture", "restore")]
    # sequential: STCS/1 captures, STCS/2 restores it; LCS/1 (other table options) captures
    assert [name for name, _ in data] == ["capture", "restore", "capture", "restore"]
    assert data[0][1] == data[1][1] != data[2][1] == data[3][1]
    preloads = [r for r in engine_runs(engine_log) if r["seed"] == 0]
    assert len(preloads) == 2
    results = [
        read_trial_result(path) for path in RunLayout(root=tmp_path / "run").trial_summaries()
    ]
    assert all("measure" in r.phase_s for r in results)
    # a new cluster is empty: only the trials after the first reset their data
    assert sum("reset" in r.phase_s for r in results) == 3
    assert sum("restore" in r.phase_s for r in results) == 2
    # the load KPIs: the fake preload wrote 100 rows in 2 s; a trial restored from an
    # earlier trial's capture reports none (that load was measured once, by that trial);
    # the fake schema has no index, so no build time
    loads = {r.trial_id: (r.kpis["ingest_rate"], r.kpis["index_build_s"]) for r in results}
    assert loads == {
        "compaction=STCS/1": (50.0, None),
        "compaction=STCS/2": (None, None),
        "compaction=LCS/1": (50.0, None),
        "compaction=LCS/2": (None, None),
    }
    assert all("index build" in r.phase_s for r in results if "preload" in r.phase_s)
    frame = trials_frame(read_run(tmp_path / "run"))  # trials.parquet's rows
    assert sorted(frame["ingest_rate"].fillna(0)) == [0, 0, 50.0, 50.0]
    assert frame["index_build_s"].isna().all()


def test_every_engine_run_of_a_run_shares_one_data_seed(tmp_path: Path, engine_log: Path) -> None:
    calls, seen = Calls(), []
    experiment = _experiment(preload="write n=100", iterations=3, data_seed=42)
    _runner(tmp_path, experiment, calls, seen).run()
    runs = engine_runs(engine_log)
    assert {r["data_seed"] for r in runs} == {42}
    assert sorted({r["seed"] for r in runs}) == [0, 1, 2, 3]  # preload, then each iteration
    manifest = read_manifest(RunLayout(root=tmp_path / "run").manifest)
    assert manifest.data_seed == 42


_UNTIL = {"kpis": ["op_rate"], "ci_half_width_pct": 3}


def test_adaptive_iterations_stop_when_every_cell_is_precise(
    tmp_path: Path, engine_log: Path
) -> None:
    calls, seen = Calls(), []
    experiment = _experiment(
        factors={"threads": [2, 4]},
        iterations={"min": 2, "max": 6, "until": _UNTIL},
        order={"kind": "randomized", "seed": 3},
    )
    _runner(tmp_path, experiment, calls, seen).run()
    layout = RunLayout(root=tmp_path / "run")
    assert len(list(layout.trial_summaries())) == 4  # equal rates: precise after min
    manifest = read_manifest(layout.manifest)
    assert manifest.stop_rule is not None
    assert "precision" in manifest.stop_rule.lower()
    assert not [e for e in seen if isinstance(e, events.RoundAdded)]


def test_adaptive_iterations_add_rounds_up_to_max(
    tmp_path: Path, engine_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_ENGINE_SPREAD", "50")  # op rate 100, 150, 200 by iteration
    calls, seen = Calls(), []
    experiment = _experiment(
        factors={"threads": [2, 4]},
        iterations={"min": 2, "max": 4, "until": _UNTIL},
        order={"kind": "randomized", "seed": 3},
    )
    reads: list[Path] = []
    monkeypatch.setattr(
        "casslab.experiment.run.finished_trials.read_trial_result",
        lambda path: reads.append(path) or read_trial_result(path),
    )
    runner = _runner(tmp_path, experiment, calls, seen)
    runner.run()
    layout = RunLayout(root=tmp_path / "run")
    assert len(list(layout.trial_summaries())) == 8
    assert reads == []  # each round's decision uses the results kept in memory
    added = [e for e in seen if isinstance(e, events.RoundAdded)]
    assert [e.round_number for e in added] == [3, 4]
    assert added[-1].total == 8
    manifest = read_manifest(layout.manifest)
    assert manifest.stop_rule is not None
    assert "max" in manifest.stop_rule.lower()
    assert manifest.trials_planned == 8
    stored = stored_plan(layout)
    assert stored is not None
    assert stored.iterations == 4
    assert len(stored.trials) == 8
    # a resume of the finished run runs nothing and keeps the rounds it added
    again: list[events.Event] = []
    _runner(tmp_path, experiment, Calls(), again).run()
    assert not [e for e in again if isinstance(e, events.TrialStarted)]


def test_jvm_warm_up_rehearses_the_preload_and_the_workload_before_the_first_trial(
    tmp_path: Path, engine_log: Path
) -> None:
    calls, seen = Calls(), []
    experiment = _experiment(preload="write n=100", iterations=2, reset="recreate")
    runner = _runner(tmp_path, experiment, calls, seen)
    runner.options = RunnerOptions(
        results_root=tmp_path, jvm_warmup_s=5, write_report=False, cluster_root=tmp_path / "c"
    )
    runner.run()
    # warm-up: the preload (seed 0, captured) and the measured workload (seed 1); trial 1
    # restores the captured preload and measures (seed 1); trial 2 likewise (seed 2)
    assert [r["seed"] for r in engine_runs(engine_log)] == [0, 1, 1, 2]
    first = read_trial_result(RunLayout(root=tmp_path / "run").trial_summary("baseline", 1))
    assert {"preload", "capture", "jvm warm-up", "reset", "restore", "measure"} <= set(
        first.phase_s
    )
    # the warm-up's preload was done for the first trial, which reports its ingest rate
    second = read_trial_result(RunLayout(root=tmp_path / "run").trial_summary("baseline", 2))
    assert (first.kpis["ingest_rate"], second.kpis["ingest_rate"]) == (50.0, None)
    phases = [e.phase for e in seen if isinstance(e, events.PhaseStarted)]
    assert phases[:8] == [
        *["preload", "capture", "reset", "restore", "jvm warm-up"],
        *["reset", "restore", "measure"],
    ]


@pytest.mark.parametrize(
    ("profile", "own", "options"),
    [
        ([], (), ()),
        (["cpu"], (), (jfr.AT_BOOT,)),
        ([], (C1_ONLY,), (C1_ONLY,)),
        (
            ["cpu"],
            (C1_ONLY, "-Dcassandra.ring_delay_ms=5000"),
            (C1_ONLY, "-Dcassandra.ring_delay_ms=5000", jfr.AT_BOOT),
        ),
    ],
)
def test_a_profiled_runs_nodes_set_flight_recorder_up_as_they_start(
    tmp_path: Path,
    engine_log: Path,
    profile: list[str],
    own: tuple[str, ...],
    options: tuple[str, ...],
) -> None:
    """Its first runtime start would make the nodes' JIT recompile while a trial measures
    (casslab.host.jfr.AT_BOOT); an unprofiled run's nodes get nothing of it. The file's
    own ``cluster.jvm_options`` come first, in its order."""
    specs: list[ClusterSpec] = []
    create = fake_factory(Calls())

    def capture(spec: ClusterSpec, root: Path | None, *, fresh: bool) -> Any:
        specs.append(spec)
        return create(spec, root, fresh=fresh)

    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir()
    runner = Runner(
        _experiment(profile=profile, iterations=1, cluster={"jvm_options": list(own)}),
        layout,
        RunnerOptions(results_root=tmp_path, jvm_warmup_s=0, write_report=False),
        create_cluster=capture,
        metrics_sources=lambda _cluster, _pid: [],
    )
    runner.run()
    assert [spec.jvm_options for spec in specs] == [options]
