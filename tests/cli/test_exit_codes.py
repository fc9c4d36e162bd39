"""Exit codes through the real entry point, as the README documents them: a usage error
exits 2 (an unknown option, a value the framework cannot convert, an option value the
command checks itself), everything else 1 (a file's content, a missing file, the load
tools' own arguments, checked as cassandra-stress and YCSB do). Every command of the app
is walked for the first two; no cluster is needed (a command refused here starts nothing).
A command that ran to its end with a failed outcome exits 3."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from casslab.cli.exit_status import OUTCOME_FAILED
from casslab.cli.main import app
from casslab.cluster.model import BackendKind
from casslab.cluster.registry import BACKENDS
from casslab.experiment.run import recording
from fakes import FakeBackend, install_fake_engine
from hostile_entry import Case, problems, run_main, write_files


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if hasattr(command, "list_commands"):
        context = typer.Context(command)
        for name in command.list_commands(context):
            yield from _commands(command.get_command(context, name), (*path, name))
    else:
        yield path, command


COMMANDS = list(_commands(typer.main.get_group(app)))
POSITIONAL_NODE = {("nodetool",), ("clock", "set"), ("clock", "drift")}
"""Commands whose first word is a node number: an unknown option there is that number."""


def _number_options() -> Iterator[tuple[str, ...]]:
    for path, command in COMMANDS:
        for param in command.params:
            annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
            if param.param_type_name == "option" and annotation in (int, float, int | None):
                yield (*path, param.opts[0], "abc")


def test_the_walk_sees_every_command() -> None:
    paths = {path for path, _ in COMMANDS}
    assert {("up",), ("stress",), ("ycsb", "run"), ("capacity", "find"), ("tune",)} <= paths
    assert len(paths) >= 40
    assert len(list(_number_options())) >= 40


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_an_unknown_option_exits_2_naming_it(path: tuple[str, ...], tmp_path: Path) -> None:
    outcome = run_main((*path, "--no-such-option"), tmp_path)
    assert outcome.code == 2, outcome.out + outcome.err
    if path not in POSITIONAL_NODE:
        assert "--no-such-option" in outcome.text


@pytest.mark.parametrize("argv", list(_number_options()), ids=" ".join)
def test_a_number_option_given_a_word_exits_2(argv: tuple[str, ...], tmp_path: Path) -> None:
    outcome = run_main(argv, tmp_path)
    assert outcome.code == 2, outcome.out + outcome.err
    assert "got 'abc'" in outcome.text


DRY = ("--dry-run",)
STRESS = ("stress", "write", "n=10")
CASES = [
    # exit 2: a casslab option misspelt among the load tool's own arguments
    Case((*STRESS, "--dry-rn"), 2, "--dry-rn: no such option of `casslab stress`; did you mean"),
    Case((*STRESS, "--bogus=1", *DRY), 2, "--bogus: no such option"),
    Case(("ycsb", "run", "-P", "workloada", "--threads", "4", *DRY), 2, "--threads: no such"),
    Case(("capacity", "find", "--p99", "20ms", "--bogus", "write"), 2, "--bogus: no such"),
    Case((*STRESS, "--", "--dry-run"), 2, "--dry-run after `--`"),
    # exit 2: option values casslab checks itself
    Case((*STRESS, "--clients", "0", *DRY), 2, "--clients 0"),
    Case((*STRESS, "--clients", "-5", *DRY), 2, "--clients -5"),
    Case((*STRESS, "--clients", "99999", *DRY), 2, "--clients 99999: more clients than threads"),
    Case((*STRESS, "--timeout", "0", *DRY), 2, "--timeout 0: give the seconds"),
    Case((*STRESS, "--timeout", "-5", *DRY), 2, "--timeout -5"),
    Case(("ycsb", "run", "-P", "workloada", "--timeout", "0", *DRY), 2, "--timeout 0"),
    Case((*STRESS, "--seed", "-5", *DRY), 2, "got '-5'"),
    Case(("metrics", "serve", "--port", "99999"), 2, "--port 99999: give a TCP port"),
    Case(("metrics", "serve", "--port", "-5"), 2, "--port -5"),
    Case(("metrics", "serve", "--address", "0.0.0.0"), 2, "--address 0.0.0.0: not a loopback"),
    Case(("restart", "--timeout", "0"), 2, "'--timeout'"),
    Case(("up", "--timeout", "-1"), 2, "got '-1'"),
    Case(("fault", "kill", "1", "--timeout", "0"), 2, "'--timeout'"),
    Case(("logs", "--lines", "-1"), 2, "got '-1'"),
    Case(("up", "--nodes", "0"), 2, "--nodes 0"),
    Case(("capacity", "find", "--p99", "banana", "write"), 2, "--p99 'banana'"),
    Case(("capacity", "find", "--p99", "20ms", "--factor", "abc", "write"), 2, "got 'abc'"),
    Case(("attach", "--port", "0", "-c", "127.0.0.1"), 2, "0 is not a TCP port"),
    # exit 1: the load tools' own arguments, files, what a cluster says
    Case((*STRESS, "-rate", "threads=abc", *DRY), 1, "'abc' is not a number"),
    Case((*STRESS, "-rate", "threads=0", *DRY), 1, "threads=0"),
    Case(("stress", "wrote", "n=10", *DRY), 1, "'wrote'"),
    Case(("ycsb", "run", "-P", "workloada", "-threads", "abc", *DRY), 1, "abc"),
    Case((*STRESS, "-schema", "compression=Bogus", *DRY), 1, "'Bogus' is not a compressor"),
    Case(("plan", "missing.yaml"), 1, "missing.yaml"),
    Case(("logs",), 1, "no cluster"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_exit_code_as_documented(case: Case, tmp_path: Path) -> None:
    write_files(tmp_path, case.files)
    outcome = run_main(case.argv, tmp_path, {"CASSLAB_HOME": str(tmp_path / "home")})
    assert problems(case, outcome) == [], outcome.out + outcome.err


def test_a_run_whose_trial_failed_exits_3_after_its_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed trial is an outcome, not a usage error: the run goes on, writes its report and
    exits 3 (the fake engine fails the measured phase of iteration 1; a fake cluster)."""
    install_fake_engine(tmp_path, monkeypatch)
    monkeypatch.setitem(BACKENDS, BackendKind.LOCAL, FakeBackend)
    monkeypatch.setattr(recording, "default_sources", lambda _cluster, _pid=None: [])
    monkeypatch.setenv("CASSLAB_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FAKE_ENGINE_FAIL_SEEDS", "1")
    file = tmp_path / "one.yaml"
    file.write_text("name: one\nworkload: write n=20\niterations: 2\n", encoding="utf-8")
    results = tmp_path / "results"
    ran = CliRunner().invoke(app, ["run", str(file), "--results", str(results)])
    assert ran.exit_code == OUTCOME_FAILED == 3, ran.output
    summaries = sorted(results.glob("one/*/trials/*/*/summary.json"))
    assert [json.loads(s.read_text())["status"] for s in summaries] == ["failed", "ok"]
    assert next(results.glob("one/*/report.html")).is_file()
