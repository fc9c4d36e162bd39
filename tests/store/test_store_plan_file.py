"""plan.json: an envelope the store owns around the plan's own JSON, and its outline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from casslab import __version__
from casslab.errors import NewerSchemaError, StoreError
from casslab.store.layout import RunLayout
from casslab.store.plan_file import (
    PLAN_SCHEMA_VERSION,
    plan_outline,
    read_plan_file,
    write_plan_file,
)
from run_literals import PLAN


def test_write_then_read(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    written = write_plan_file(layout, PLAN)

    read = read_plan_file(layout)

    assert read == written
    assert read is not None
    assert read.plan == PLAN
    assert read.casslab_version == __version__
    assert read.schema_version == PLAN_SCHEMA_VERSION
    assert json.loads(layout.plan.read_text())["plan"]["baseline_cell_id"] == "size=small"


def test_no_plan_file_is_none(tmp_path: Path) -> None:
    assert read_plan_file(RunLayout(root=tmp_path)) is None


def test_a_newer_plan_file_is_refused(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    layout.plan.write_text(
        json.dumps(
            {
                "schema_version": PLAN_SCHEMA_VERSION + 1,
                "casslab_version": "9.0.0",
                "written_at": "2030-01-01T00:00:00Z",
                "plan": {},
                "shards": [],
            }
        )
    )
    with pytest.raises(NewerSchemaError, match=r"plan\.json: it has schema_version 2.*upgrade"):
        read_plan_file(layout)


def test_the_outline_keeps_design_order_baseline_and_run_order(tmp_path: Path) -> None:
    layout = RunLayout(root=tmp_path)
    outline = plan_outline(layout, write_plan_file(layout, PLAN))

    assert [c.id for c in outline.cells] == ["size=big", "size=small"]
    assert [c.baseline for c in outline.cells] == [False, True]
    assert outline.baseline_cell_id == "size=small"
    assert outline.factors == ("config.size",)
    assert outline.cells[0].levels == {"config.size": 9}
    assert [(t.trial_id, t.position) for t in outline.trials] == [
        ("size=big/1", 0),
        ("size=small/1", 1),
    ]


@pytest.mark.parametrize(
    ("drop", "detail"),
    [
        ("cells", "cells: required, but missing"),
        ("baseline_cell_id", "baseline_cell_id: required, but missing"),
    ],
)
def test_a_plan_without_what_the_outline_needs_is_a_store_error(
    tmp_path: Path, drop: str, detail: str
) -> None:
    layout = RunLayout(root=tmp_path)
    plan: dict[str, Any] = {k: v for k, v in PLAN.items() if k != drop}
    with pytest.raises(StoreError, match="lacks what the report needs") as caught:
        plan_outline(layout, write_plan_file(layout, plan))
    assert detail in caught.value.detail
