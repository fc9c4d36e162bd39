"""Runs written before plan.json existed still render, and say where their plan came from;
a run of a newer casslab is refused with the fix.

``data/before-plan-json`` is such a run, in the old layout (manifest and trial summaries,
no plan.json): two cells (compaction=STCS the baseline, compaction=LCS) x 2 iterations and
one failed LCS trial, engine files cut to their last intervals, no metrics.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from casslab.cli.report import register
from casslab.errors import NewerSchemaError
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.design.stored_plan import outline_of_manifest, save_plan
from casslab.experiment.file.experiment_model import Experiment
from casslab.report import build_report, write_report
from casslab.store.layout import RunLayout
from casslab.store.run_data import read_run
from casslab.store.run_records import read_manifest

OLD_RUN = Path(__file__).parent / "data" / "before-plan-json"
STCS = "compaction=STCS"
LCS = "compaction=LCS"


@pytest.fixture
def old_run(tmp_path: Path) -> Path:
    """A copy of the old-layout run (the report writes into its directory)."""
    return Path(shutil.copytree(OLD_RUN, tmp_path / OLD_RUN.name))


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


def test_the_fixture_is_in_the_old_layout() -> None:
    assert (OLD_RUN / "manifest.json").is_file()
    assert not (OLD_RUN / "plan.json").exists()
    assert len(list(OLD_RUN.glob("trials/*/*/summary.json"))) == 5


def test_casslab_report_of_an_old_run_expands_its_manifest_and_says_so(old_run: Path) -> None:
    result = CliRunner().invoke(_app(), ["report", str(old_run)], terminal_width=400)

    assert result.exit_code == 0, result.output
    assert (old_run / "report.html").is_file()
    assert not (old_run / "plan.json").exists()  # reading a run never changes its plan
    summary = " ".join((old_run / "summary.md").read_text(encoding="utf-8").split())
    assert "plan.json is missing (the run was written by a casslab before plan.json" in summary
    assert "come from expanding the manifest's experiment with this casslab" in summary
    assert f"**baseline cell**: {STCS}" in summary


def test_the_legacy_plan_gives_the_verdicts_a_plan_json_would(
    old_run: Path, tmp_path: Path
) -> None:
    legacy = build_report(read_run(old_run, legacy_plan=outline_of_manifest))
    planned_run = Path(shutil.copytree(OLD_RUN, tmp_path / "with-plan"))
    experiment = Experiment.model_validate(read_manifest(planned_run / "manifest.json").experiment)
    save_plan(RunLayout(root=planned_run), expand(experiment))
    planned = build_report(read_run(planned_run))

    assert {row.baseline_cell for row in legacy.verdicts} == {STCS}
    assert [r.model_dump(exclude={"reason"}) for r in legacy.verdicts] == [
        r.model_dump(exclude={"reason"}) for r in planned.verdicts
    ]
    assert legacy.warnings[1:] == planned.warnings  # the plan note is the one difference
    assert "plan.json is missing" in legacy.warnings[0]


def test_without_the_legacy_plan_the_report_says_why_cells_are_sorted(old_run: Path) -> None:
    paths = write_report(old_run)

    report = build_report(read_run(old_run))
    assert paths.report_html.is_file()
    assert report.warnings[0] == (
        "plan.json is missing (the run was written by a casslab before plan.json existed); "
        f"cells are in sorted order and {LCS!r} is taken as the baseline"
    )


def test_an_old_run_whose_experiment_no_longer_expands_still_renders(old_run: Path) -> None:
    manifest = json.loads((old_run / "manifest.json").read_text())
    manifest["experiment"]["design"] = "latin-square"  # a design this casslab does not know
    (old_run / "manifest.json").write_text(json.dumps(manifest))

    result = CliRunner().invoke(_app(), ["report", str(old_run)], terminal_width=400)

    assert result.exit_code == 0, result.output
    summary = " ".join((old_run / "summary.md").read_text(encoding="utf-8").split())
    assert "and the manifest's experiment could not be expanded (design: expected" in summary
    assert f"cells are in sorted order and {LCS!r} is taken as the baseline" in summary


def test_a_run_of_a_newer_casslab_is_refused_with_the_fix(old_run: Path) -> None:
    manifest = json.loads((old_run / "manifest.json").read_text())
    manifest["schema_version"] = 2
    (old_run / "manifest.json").write_text(json.dumps(manifest))

    result = CliRunner().invoke(_app(), ["report", str(old_run)])

    assert result.exit_code != 0
    assert isinstance(result.exception, NewerSchemaError)
    message = str(result.exception)
    assert str(old_run / "manifest.json") in message
    assert "schema_version 2" in message
    assert "upgrade casslab" in message
    assert not (old_run / "report.html").exists()
