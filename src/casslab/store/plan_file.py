"""``plan.json``: the expanded plan a run started with, in a versioned envelope.

The plan's own model (:class:`casslab.experiment.design.plan_records.Plan`: cells, trials, order,
restarts) belongs to the experiment package, which sits above the store. The store keeps
that plan as JSON data inside a :class:`PlanFile` it owns: the envelope's
``schema_version``, the casslab version that wrote it, when, and the plan. Readers below
the experiment package (the report, ``casslab.results``) read the part of the plan they
need through :class:`PlanOutline`: cells in design order with their levels and the
baseline, factors, trial ids in run order. Its field names are those of ``Plan``; a test
of the experiment package checks that every plan it expands reads as an outline.

Bump :data:`PLAN_SCHEMA_VERSION` when the envelope or the outline's fields change shape.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from casslab import __version__
from casslab.errors import StoreError
from casslab.record import Record
from casslab.store.io import read_record, write_record
from casslab.store.layout import RunLayout
from casslab.validation import validation_message

PLAN_SCHEMA_VERSION = 1


class PlanFile(Record):
    """``plan.json``: the envelope around the plan's own JSON."""

    schema_version: int = PLAN_SCHEMA_VERSION
    casslab_version: str  # the casslab that expanded and wrote the plan
    written_at: datetime
    plan: dict[str, Any]  # casslab.experiment.design.plan_records.Plan, as JSON


class _Outline(BaseModel):
    """Reads the plan's JSON, ignoring the fields the readers below it do not need."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class CellOutline(_Outline):
    id: str
    levels: dict[str, Any]  # factor name -> level as written in the experiment file
    labels: dict[str, str]  # factor name -> level slug
    baseline: bool = False


class TrialOutline(_Outline):
    trial_id: str
    cell_id: str
    iteration: int
    position: int


class PlanOutline(_Outline):
    """What the report and ``casslab.results`` take from a plan."""

    experiment: str
    digest: str
    factors: tuple[str, ...]
    baseline_cell_id: str
    cells: tuple[CellOutline, ...]
    trials: tuple[TrialOutline, ...] = ()


def write_plan_file(layout: RunLayout, plan: dict[str, Any]) -> PlanFile:
    """Write ``plan.json`` (atomically) around ``plan``, the plan's own JSON."""
    record = PlanFile(casslab_version=__version__, written_at=datetime.now(UTC), plan=plan)
    write_record(layout.plan, record)
    return record


def read_plan_file(layout: RunLayout) -> PlanFile | None:
    """``plan.json`` of a run, or None when the run has none (written before it existed).

    Raises :class:`~casslab.errors.NewerSchemaError` for a plan of a newer casslab and
    :class:`~casslab.errors.StoreError` for an unreadable one.
    """
    if not layout.plan.is_file():
        return None
    return read_record(layout.plan, PlanFile, "plan")


def plan_outline(layout: RunLayout, plan_file: PlanFile) -> PlanOutline:
    """The outline of the plan in ``plan_file``; :class:`StoreError` when the plan lacks
    a field the outline needs."""
    try:
        return PlanOutline.model_validate(plan_file.plan)
    except ValidationError as error:
        detail = validation_message(error, data=plan_file.plan)
        raise StoreError(
            f"read plan {layout.plan}: its plan lacks what the report needs ({detail}); "
            f"it was written by casslab {plan_file.casslab_version}",
            detail=detail,
        ) from error
