"""``casslab report DIR`` and ``casslab compare A B -o OUT`` through Typer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from typer.testing import CliRunner

from casslab.cli.report import register
from casslab.errors import StoreError

RunFactory = Callable[..., Path]


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


def test_report_command_prints_the_paths(make_run: RunFactory) -> None:
    run = make_run("run-a")

    result = CliRunner().invoke(_app(), ["report", str(run)], terminal_width=400)

    assert result.exit_code == 0, result.output
    assert f"report:  {run / 'report.html'}" in result.output
    assert f"summary: {run / 'summary.md'}" in result.output
    assert (run / "report.html").is_file()
    assert (run / "trials.csv").is_file()


def test_compare_command_writes_into_out(make_run: RunFactory, tmp_path: Path) -> None:
    a, b = make_run("run-a"), make_run("run-b", failed=False, scale=1.1)
    out = tmp_path / "cmp"

    result = CliRunner().invoke(
        _app(), ["compare", str(a), str(b), "-o", str(out)], terminal_width=400
    )

    assert result.exit_code == 0, result.output
    assert f"comparison: {out / 'compare.html'}" in result.output
    assert (out / "compare.md").is_file()


def test_report_of_a_directory_without_manifest_is_a_store_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(_app(), ["report", str(tmp_path)])

    assert result.exit_code != 0
    assert isinstance(result.exception, StoreError)
    assert "manifest.json not found" in str(result.exception)


def test_report_command_warns_of_an_unreadable_summary(make_run: RunFactory) -> None:
    run = make_run("run-a")
    summary = sorted(run.glob("trials/*/*/summary.json"))[0]
    summary.write_text(summary.read_text(encoding="utf-8")[:60], encoding="utf-8")
    where = summary.relative_to(run).as_posix()

    result = CliRunner().invoke(_app(), ["report", str(run)], terminal_width=400)

    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert f"warning: {where}: not a trial summary (not valid JSON (" in output
    assert "its trial is left out of the report" in output
    assert "validation error for" not in output
    assert f"report: {run / 'report.html'}" in output


def test_report_refuses_a_figures_link_out_of_the_run(make_run: RunFactory, tmp_path: Path) -> None:
    run = make_run("run-a")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (run / "figures").symlink_to(elsewhere)

    result = CliRunner().invoke(_app(), ["report", str(run)], terminal_width=400)

    assert result.exit_code != 0
    assert "leads out of the run directory" in str(result.exception)
    assert str(run / "figures") in str(result.exception)
    assert list(elsewhere.iterdir()) == []


def test_report_follows_a_figures_link_inside_the_run(make_run: RunFactory) -> None:
    run = make_run("run-a")
    (run / "pictures").mkdir()
    (run / "figures").symlink_to(run / "pictures")

    result = CliRunner().invoke(_app(), ["report", str(run)], terminal_width=400)

    assert result.exit_code == 0, result.output
    assert list((run / "pictures").glob("*.png"))
