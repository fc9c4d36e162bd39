"""read_run: a run directory as one RunData; where the plan came from, or why none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import SCHEMA_VERSION as ENGINE_SCHEMA_VERSION
from casslab.errors import ExperimentError, NewerSchemaError, StoreError
from casslab.store.plan_file import PlanOutline
from casslab.store.run_data import LegacyPlan, read_run
from casslab.store.run_records import RunManifest, TrialStatus
from run_literals import PLAN, trial, write_run

OUTLINE = PlanOutline.model_validate(PLAN)


def test_a_run_with_its_plan(tmp_path: Path) -> None:
    write_run(tmp_path)

    run = read_run(tmp_path)

    assert run.plan == OUTLINE
    assert run.plan_note == ""
    assert [t.result.trial_id for t in run.trials] == ["size=big/1", "size=small/1"]
    assert run.trials[0].problems == ("engine.jsonl is missing", "metrics.parquet is missing")
    assert run.problems == ()


def test_no_manifest_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"manifest\.json not found; give the run directory"):
        read_run(tmp_path)


def _never(manifest: RunManifest) -> PlanOutline:
    raise AssertionError("the legacy plan is for runs without plan.json")


def _legacy(manifest: RunManifest) -> PlanOutline:
    return OUTLINE


def _legacy_fails(manifest: RunManifest) -> PlanOutline:
    raise ExperimentError("factor 'config.size': no levels")


def test_plan_json_wins_over_the_legacy_plan(tmp_path: Path) -> None:
    write_run(tmp_path)
    assert read_run(tmp_path, legacy_plan=_never).plan == OUTLINE


@pytest.mark.parametrize(
    ("legacy", "plan", "note"),
    [
        (None, None, "plan.json is missing (the run was written by a casslab before plan.json"),
        (_legacy, OUTLINE, "come from expanding the manifest's experiment with this casslab"),
        (_legacy_fails, None, "could not be expanded (factor 'config.size': no levels)"),
    ],
)
def test_a_run_written_before_plan_json(
    tmp_path: Path, legacy: LegacyPlan | None, plan: PlanOutline | None, note: str
) -> None:
    write_run(tmp_path, plan=None)

    run = read_run(tmp_path, legacy_plan=legacy)

    assert run.plan == plan
    assert note in run.plan_note
    assert len(run.trials) == 2


def test_an_unreadable_plan_json_is_noted_and_the_legacy_plan_used(tmp_path: Path) -> None:
    layout = write_run(tmp_path)
    layout.plan.write_text(layout.plan.read_text()[:30])

    run = read_run(tmp_path, legacy_plan=_legacy)

    assert run.plan == OUTLINE
    assert run.plan_note.startswith("plan.json is unreadable (not valid JSON (")


def test_a_newer_plan_json_stops_the_load(tmp_path: Path) -> None:
    layout = write_run(tmp_path)
    data = json.loads(layout.plan.read_text())
    data["schema_version"] += 1
    layout.plan.write_text(json.dumps(data))

    with pytest.raises(NewerSchemaError, match="upgrade casslab"):
        read_run(tmp_path, legacy_plan=_legacy)


def test_an_unreadable_summary_is_a_problem_and_a_newer_one_an_error(tmp_path: Path) -> None:
    layout = write_run(tmp_path)
    cut = layout.trial_summary("size=big", 1)
    cut.write_text(cut.read_text()[:25])

    run = read_run(tmp_path)

    assert [t.result.trial_id for t in run.trials] == ["size=small/1"]
    (problem,) = run.problems
    assert problem.startswith("trials/size=big/1/summary.json: not a trial summary (not valid")
    assert problem.endswith("its trial is left out of the report")

    newer = json.loads(trial("size=big").model_dump_json())
    newer["schema_version"] = 2
    cut.write_text(json.dumps(newer))
    with pytest.raises(NewerSchemaError, match=r"summary\.json"):
        read_run(tmp_path)


def test_a_newer_engine_record_stops_the_load(tmp_path: Path) -> None:
    layout = write_run(tmp_path)
    jsonl = layout.engine_jsonl("size=big", 1)
    record = {"schema_version": ENGINE_SCHEMA_VERSION + 1, "type": "interval"}
    jsonl.write_text(json.dumps(record) + "\n")

    with pytest.raises(NewerSchemaError, match=r"engine\.jsonl: it has schema_version 2"):
        read_run(tmp_path)


def test_a_cut_engine_line_is_a_problem_of_its_trial(tmp_path: Path) -> None:
    layout = write_run(tmp_path)
    layout.engine_jsonl("size=big", 1).write_text('{"type": "interval", "t_sta\n')

    run = read_run(tmp_path)

    assert run.trials[0].problems[0].startswith("engine.jsonl line 1: unreadable record")
    assert run.trials[0].result.status is TrialStatus.OK
