"""``casslab capacity find`` without Cassandra: the command in process with a queue model in
place of the engine (its JSON, its files, an interrupt, no rate found, the closed loop), and
bad input through the real entry point, refused before anything starts."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from casslab.capacity.find import Probe
from casslab.capacity.ramp import RampPoint, RampResult
from casslab.cli import capacity_find
from casslab.cli.interrupt import Interrupted
from casslab.load import engine
from cli_entry import casslab, flat


class QueueMeasure:
    """A cluster of capacity 10,000 ops/s whose p99 is base / (1 - rate/C)."""

    base_ms = 2.0
    interrupt_at: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.runs = 0

    def __call__(self, rate: float) -> Probe:
        self.runs += 1
        if self.interrupt_at == self.runs:
            raise KeyboardInterrupt
        p99 = self.base_ms / (1 - rate / 10_000) if rate < 10_000 else 4000.0
        done = min(rate, 10_000.0)
        return Probe(
            rate_asked_per_s=rate,
            rate_achieved_per_s=done,
            ops=round(done * 10),
            errors=0,
            p50_ms=p99 / 3,
            p99_ms=p99,
            p999_ms=p99 * 2,
            duration_s=10.0,
        )


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    monkeypatch.setattr(capacity_find, "EngineMeasure", QueueMeasure)
    monkeypatch.setattr(capacity_find, "check_reachable", lambda points: None)
    monkeypatch.setattr(engine, "engine_binary", lambda: Path("/bin/true"))
    root = typer.Typer()
    group = typer.Typer()
    capacity_find.register(group)

    @group.command("other")
    def other() -> None:  # a second command keeps "find" a subcommand
        """Nothing."""

    root.add_typer(group, name="capacity")

    @root.callback()
    def main() -> None:
        """casslab."""

    return root


def run(app: typer.Typer, *args: str) -> Any:
    return CliRunner().invoke(app, ["capacity", "find", *args], env={"COLUMNS": "200"})


def test_json_is_the_result_and_the_files_are_written(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "found"
    result = run(app, "--p99", "20ms", "--json", "--out", str(out), "write -pop seq=1..1000")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert 9000 / 1.05 <= answer["max_rate"] <= 9000 < answer["bracket_high_per_s"]
    assert answer["p99_ms_at_max"] <= 20
    assert answer["status"] == "found"
    assert answer["runs_at_max"] == 3
    first = answer["points"][0]
    assert first["probe"]["rate_asked_per_s"] == 1000
    assert first["verdict"] == "pass"
    assert answer["elapsed_s"] >= 0
    saved = json.loads((out / "find.json").read_text())
    assert saved["max_rate"] == answer["max_rate"]
    assert (out / "find.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "run  1:" in result.stderr  # progress goes to standard error


def test_text_shows_the_curve_and_the_answer(app: typer.Typer, tmp_path: Path) -> None:
    result = run(app, "--p99", "20ms", "--out", str(tmp_path), "write", "-rate", "threads=64")
    assert result.exit_code == 0, result.output
    text = flat(result.stdout)
    assert "rate against p99 (the open-loop curve)" in text
    assert "max rate: 8,940 ops/s with p99 <= 20 ms and no errors" in text
    assert "the SLO is crossed between 8,940 and 9,200 ops/s (+2.9%)" in text
    assert "probability >= 0.37 (one-sided 95%, Clopper-Pearson)" in text


def test_an_interrupt_keeps_the_runs_measured(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QueueMeasure, "interrupt_at", 4)
    result = run(app, "--p99", "20ms", "--json", "--out", str(tmp_path), "write")
    assert isinstance(result.exception, Interrupted)
    assert str(tmp_path / "find.json") in result.exception.hint
    saved = json.loads((tmp_path / "find.json").read_text())
    assert saved["status"] == "interrupted"
    assert len(saved["points"]) == 3
    assert json.loads(result.stdout)["max_rate"] == 4000


def test_no_rate_meeting_the_slo_exits_3(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QueueMeasure, "base_ms", 30.0)
    result = run(app, "--p99", "20ms", "--min-rate", "250", "--out", str(tmp_path), "write")
    assert result.exit_code == 3, result.output  # an outcome, not a usage error
    assert "no rate meets p99 <= 20 ms and no errors: even 250/s failed" in flat(result.stdout)


def test_closed_loop_reports_the_best_thread_count(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = [
        RampPoint(threads=4, op_rate=3000.0, p99_ms=2.0, errors=0, meets_slo=True),
        RampPoint(threads=8, op_rate=5000.0, p99_ms=30.0, errors=0, meets_slo=False),
    ]
    ramp = RampResult(
        best_threads=8,
        op_rate=5000.0,
        p99_ms_at_best=30.0,
        p99_slo_ms=20.0,
        best_threads_under_slo=4,
        op_rate_under_slo=3000.0,
        steps=steps,
    )
    monkeypatch.setattr(capacity_find, "run_ramp", lambda *args, **kwargs: ramp)
    result = run(app, "--closed-loop", "--p99", "20ms", "--json", "--out", str(tmp_path), "write")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["best_threads"], answer["op_rate"]) == (8, 5000.0)
    assert "best under p99 20 ms: 4 threads, 3,000 ops/s" in flat(result.stderr)
    assert (tmp_path / "ramp.png").is_file()
    assert (tmp_path / "ramp.json").is_file()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--p99", "20", "write"], 2, "--p99 20: give the unit, e.g. --p99 20ms (or 20s)"),
        (["write"], 2, "capacity find: give the SLO, e.g. --p99 20ms"),
        (["--p99", "20ms", "--errors", "0.1", "write"], 2, "give 0 (no failed operation) or"),
        (["--p99", "20ms", "write", "n=1000"], 1, "n=1000: each run of the search lasts"),
        (
            ["--p99", "20ms", "write -rate threads=8 fixed=500/s"],
            1,
            "-rate fixed=/throttle=: capacity find sets it per run",
        ),
        (
            ["--p99", "20ms", "--preload", "ycsb load -P workloada", "write"],
            2,
            "use the workload's tool (stress) for it",
        ),
        (["--p99", "20ms", "--min-recall", "1.5", "write"], 2, "--min-recall 1.5: give the"),
        (["--p99", "20ms", "--min-recall", "0.95", "write"], 2, "counts no recall@k"),
        (["--closed-loop", "--min-recall", "0.95", "write"], 2, "floor is of the open-loop"),
        (
            ["--p99", "20ms", "write", "-node", "127.0.237.250"],
            1,
            "no Cassandra node answers at 127.0.237.250:9042",
        ),
    ],
)
def test_bad_input_is_refused_before_anything_starts(
    args: list[str], code: int, message: str, tmp_path: Path
) -> None:
    """Exit 2 for the command's own options (a usage error), 1 for the rest."""
    done = casslab(None, "capacity", "find", "--out", str(tmp_path / "out"), *args, timeout_s=60)
    assert done.returncode == code, done.stdout + done.stderr
    assert message in flat(done.stderr)
    assert not (tmp_path / "out").exists()


def test_the_queue_model_crosses_the_slo_where_expected() -> None:
    measure = QueueMeasure()
    assert math.isclose(measure(9000).p99_ms or 0, 20.0)
