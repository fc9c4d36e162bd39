"""The plan a run keeps in its ``plan.json``, seen from the experiment package.

The store owns the file (:mod:`casslab.store.plan_file`: a versioned envelope around the
plan's JSON); this module owns what is inside:
:class:`~casslab.experiment.design.plan_records.Plan`.

* :func:`save_plan`: the runner writes the plan when a run starts; a resumed run keeps
  the one it has.
* :func:`plan_for_run`: the plan to run. A run directory with a ``plan.json`` runs *that*
  plan, not the experiment file expanded again by this casslab: an expansion rule that
  changed between versions (order, cell ids) cannot reshuffle a run half done. The
  experiment file must still be the one the run started with (same digest); an edited
  file is an error, because the runner takes more than the plan from it (cluster
  version, names, profile files), and mixing the two would run neither.
* Schemas: a plan of schema 1 (before trials carried their nodes' isolation) or 2
  (before they carried a topology) reads as schema
  :data:`~casslab.experiment.design.plan_records.PLAN_SCHEMA_VERSION` whose nodes are plain
  processes (1) in one datacenter (1, 2), which is what it ran; one of a newer casslab is
  refused by name.
* :func:`outline_of_manifest`: for runs written before ``plan.json`` existed, the plan
  outline the report needs, expanded from the manifest's resolved experiment with this
  casslab (the report says so).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from casslab import __version__
from casslab.errors import ExperimentError
from casslab.experiment.design.plan_expansion import expand, experiment_digest
from casslab.experiment.design.plan_records import PLAN_SCHEMA_VERSION, Plan
from casslab.experiment.file.experiment_model import Experiment
from casslab.store.io import check_schema_version, supported_version
from casslab.store.layout import RunLayout
from casslab.store.plan_file import PlanOutline, read_plan_file, write_plan_file
from casslab.store.run_records import RunManifest
from casslab.validation import validation_message


def plan_json(plan: Plan) -> dict[str, Any]:
    """The plan as the JSON data ``plan.json`` holds."""
    data: dict[str, Any] = plan.model_dump(mode="json")
    return data


def save_plan(layout: RunLayout, plan: Plan) -> None:
    """Write ``plan.json`` unless the run has one already (a resumed run keeps its plan)."""
    if not layout.plan.is_file():
        write_plan_file(layout, plan_json(plan))


def update_plan(layout: RunLayout, plan: Plan) -> None:
    """Write ``plan.json`` anew: an adaptive run added a round to its plan."""
    write_plan_file(layout, plan_json(plan))


def stored_plan(layout: RunLayout) -> Plan | None:
    """The plan in the run's ``plan.json``, or None when it has none.

    Raises :class:`~casslab.errors.NewerSchemaError` when a newer casslab wrote it, and
    :class:`ExperimentError` when this casslab cannot read the plan inside.
    """
    stored = read_plan_file(layout)
    if stored is None:
        return None
    data = stored.plan
    check_schema_version(layout.plan, data.get("schema_version"), supported_version(Plan), "plan")
    try:
        plan = Plan.model_validate(data)
    except ValidationError as error:
        raise ExperimentError(
            f"read plan {layout.plan}: this casslab ({__version__}) cannot read the plan "
            f"that casslab {stored.casslab_version} wrote ({validation_message(error)}); "
            f"finish the run with casslab {stored.casslab_version}, or start a new run"
        ) from error
    return plan.model_copy(update={"schema_version": PLAN_SCHEMA_VERSION})


def plan_for_run(experiment: Experiment, layout: RunLayout) -> Plan:
    """The plan of ``experiment`` in ``layout``: ``plan.json``'s when the run has one,
    else the experiment expanded now (see the module docstring)."""
    stored = stored_plan(layout)
    if stored is None:
        return expand(experiment)
    if stored.digest != experiment_digest(experiment):
        raise ExperimentError(
            f"cannot resume {layout.root}: the experiment file changed since that run "
            f"started (its plan.json was expanded from another version of "
            f"{experiment.name!r}); restore the file, or run without --resume to start a "
            "new run"
        )
    return stored


def outline_of_manifest(manifest: RunManifest) -> PlanOutline:
    """The plan outline of a run without ``plan.json``: its manifest's resolved experiment,
    expanded by this casslab. Raises ValidationError or ExperimentError when it cannot be."""
    plan = expand(Experiment.model_validate(manifest.experiment))
    return PlanOutline.model_validate(plan_json(plan))
