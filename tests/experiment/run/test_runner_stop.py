"""A cluster that cannot start stops the run with the reason instead of failing every trial;
an unreadable trial summary is reported on the console."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from casslab.errors import ClusterError, ExperimentError
from casslab.experiment.design.plan_records import Trial
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import events
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialResult, TrialStatus
from cli_entry import casslab

EXPERIMENT = Path(__file__).parents[1] / "data" / "two-cells.yaml"
BUSY = "cannot start the cluster, ports in use (nothing was started):\n  node 1: CQL port busy"


def _experiment() -> Experiment:
    return Experiment.model_validate(
        {
            "name": "stop",
            "workload": "mixed ratio(write=9,read=1)",
            "factors": {"nodes": [1, 3]},
            "iterations": 2,
            "order": "sequential",
        }
    )


def _summary(layout: RunLayout, cell: str, iteration: int) -> Path:
    return layout.trial_summary(cell, iteration)


def test_the_run_goes_on_while_another_setup_is_left_then_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempted: list[str] = []

    def cannot_start(self: Runner, trial: Trial) -> Any:
        attempted.append(trial.trial_id)
        raise ClusterError(BUSY)

    monkeypatch.setattr(Runner, "_ensure_cluster", cannot_start)
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir()
    # a trial an earlier run finished, and one whose summary a crash cut short
    now = datetime.now(UTC)
    done = TrialResult(
        trial_id="nodes=1/1",
        cell_id="nodes=1",
        iteration=1,
        order_index=0,
        factors={"nodes": "1"},
        status=TrialStatus.OK,
        started_at=now,
        ended_at=now,
    )
    _summary(layout, "nodes=1", 1).parent.mkdir(parents=True)
    _summary(layout, "nodes=1", 1).write_text(done.model_dump_json())
    _summary(layout, "nodes=3", 2).parent.mkdir(parents=True)
    _summary(layout, "nodes=3", 2).write_text(done.model_dump_json()[:40])
    seen: list[events.Event] = []
    options = RunnerOptions(experiment_file=Path("stop.yaml"), jvm_warmup_s=0)
    runner = Runner(_experiment(), layout, options, on_event=seen.append)

    with pytest.raises(ExperimentError) as caught:
        runner.run()

    # nodes=1/2 fails, but nodes=3 trials are left; once nodes=3/1 fails too, nothing
    # left can get past it and nodes=3/2 is not attempted
    assert attempted == ["nodes=1/2", "nodes=3/1"]
    message = str(caught.value)
    assert message.startswith("trial nodes=3/1: its cluster (3 node(s)")
    assert "CQL port busy" in message
    assert "the 1 trial(s) left need a cluster set up like one that did not start" in message
    assert "1 of 4 trial(s) are finished" in message
    assert "casslab run stop.yaml --resume-dir" in message
    warnings = [e.message for e in seen if isinstance(e, events.RunWarning)]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(
        f"unreadable trial summary {_summary(layout, 'nodes=3', 2)}: not valid JSON"
    )
    assert warnings[0].endswith("its trial will be run again")
    failed = [e.result for e in seen if isinstance(e, events.TrialFinished)]
    assert [r.status for r in failed] == [TrialStatus.FAILED, TrialStatus.FAILED]
    assert runner.finished_trials() == {"nodes=1/1"}
    assert layout.manifest.is_file()


# ---------------------------------------------------------------- the real CLI


@pytest.fixture
def busy_cql_port() -> Iterator[str]:
    """Another process's listener on the CQL port of the run's node 1."""
    address = "127.0.170.1"
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((address, 9042))
        sock.listen(1)
        yield address


def test_busy_ports_stop_the_run_after_the_first_trial(tmp_path: Path, busy_cql_port: str) -> None:
    home, results = tmp_path / "home", tmp_path / "results"
    placement = ("--base-address", busy_cql_port, "--jmx-port-base", "8300")
    result = casslab(home, "run", str(EXPERIMENT), "--results", str(results), *placement)

    assert result.returncode != 0, result.stdout + result.stderr
    error = " ".join(result.stderr.split())
    assert error.startswith("Error: trial compaction=")
    assert f"CQL port {busy_cql_port}:9042 is busy" in error
    assert "the 3 trial(s) left need a cluster set up like one that did not start" in error
    assert "0 of 4 trial(s) are finished; no report written" in error
    (run_dir,) = (results / "two-cells").iterdir()
    assert f"casslab run {EXPERIMENT} --resume-dir {run_dir} " in error
    summaries = sorted(run_dir.glob("trials/*/*/summary.json"))
    assert len(summaries) == 1  # one trial attempted, the other three not
    first = TrialResult.model_validate_json(summaries[0].read_text())
    assert first.status is TrialStatus.FAILED
    assert not (run_dir / "report.html").exists()
    assert not (run_dir / "summary.md").exists()

    # A crash cut that summary short: the resumed run says so, and runs its trial again
    summaries[0].write_text(summaries[0].read_text()[:50])
    again = casslab(
        home,
        "run",
        str(EXPERIMENT),
        "--resume-dir",
        str(run_dir),
        "--results",
        str(results),
        *placement,
    )
    assert again.returncode != 0
    output = " ".join(again.stdout.split())
    where = summaries[0].relative_to(run_dir).as_posix()
    assert "warning: unreadable trial summary" in output, again.stdout
    assert where in output
    assert "not valid JSON" in output
    assert "its trial will be run again" in output
    assert "Error: trial compaction=" in " ".join(again.stderr.split())


def test_a_bad_placement_option_is_named_before_a_run_directory_is_made(tmp_path: Path) -> None:
    results = tmp_path / "results"
    result = casslab(
        tmp_path / "home",
        "run",
        str(EXPERIMENT),
        "--results",
        str(results),
        "--jmx-port-base",
        "99",
    )
    assert result.returncode == 1
    error = " ".join(result.stderr.split())
    assert "Error: --jmx-port-base: must be >= 1024, got 99" in error
    assert "Traceback" not in result.stderr
    assert not results.exists()
