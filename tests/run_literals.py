"""Literal run directories for tests of the store: a manifest, a plan, trial summaries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from casslab.store.io import write_record
from casslab.store.layout import RunLayout
from casslab.store.plan_file import write_plan_file
from casslab.store.run_records import HostFacts, RunManifest, TrialResult, TrialStatus

START = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)

# the JSON of a plan as casslab.experiment.design.plan_records.Plan writes it (fields the outline
# ignores included): two cells, "size=small" the baseline, listed after "size=big" in design order
PLAN: dict[str, Any] = {
    "schema_version": 1,
    "experiment": "literal",
    "digest": "d1",
    "design": "factorial",
    "order": {"kind": "sequential", "seed": 1},
    "iterations": 1,
    "factors": ["config.size"],
    "baseline_cell_id": "size=small",
    "cells": [
        {"id": "size=big", "levels": {"config.size": 9}, "labels": {"config.size": "big"}},
        {
            "id": "size=small",
            "levels": {"config.size": 1},
            "labels": {"config.size": "small"},
            "baseline": True,
        },
    ],
    "trials": [
        {
            "trial_id": "size=big/1",
            "cell_id": "size=big",
            "iteration": 1,
            "position": 0,
            "nodes": 1,
            "restart": True,
        },
        {
            "trial_id": "size=small/1",
            "cell_id": "size=small",
            "iteration": 1,
            "position": 1,
            "nodes": 1,
            "restart": True,
        },
    ],
}


def manifest(**update: Any) -> RunManifest:
    record = RunManifest(
        experiment_name="literal",
        run_id="run",
        casslab_version="0.1.0",
        host=HostFacts(
            hostname="lab", os="Linux", kernel="6.1", cpus=2, memory_bytes=2**33, python="3.11"
        ),
        experiment={"name": "literal", "kpis": ["op_rate"]},
        started_at=START,
    )
    return record.model_copy(update=update)


def trial(
    cell: str, iteration: int = 1, order_index: int = 0, *, ok: bool = True, **update: Any
) -> TrialResult:
    record = TrialResult(
        trial_id=f"{cell}/{iteration}",
        cell_id=cell,
        iteration=iteration,
        order_index=order_index,
        factors={"config.size": cell.partition("=")[2]},
        status=TrialStatus.OK if ok else TrialStatus.FAILED,
        error=None if ok else "it broke",
        started_at=START + timedelta(minutes=order_index),
        ended_at=START + timedelta(minutes=order_index, seconds=30),
        kpis={"op_rate": 1000.0 + order_index} if ok else {},
    )
    return record.model_copy(update=update)


def write_run(
    root: Path, trials: list[TrialResult] | None = None, *, plan: dict[str, Any] | None = PLAN
) -> RunLayout:
    """A run directory in ``root``: manifest, ``plan.json`` (unless ``plan`` is None) and
    one ``summary.json`` per trial (default: both cells, the big one first)."""
    layout = RunLayout(root=root)
    write_record(layout.manifest, manifest())
    if plan is not None:
        write_plan_file(layout, plan)
    for result in trials if trials is not None else [trial("size=big"), trial("size=small", 1, 1)]:
        write_record(layout.trial_summary(result.cell_id, result.iteration), result)
    return layout
