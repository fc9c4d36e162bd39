"""casslab.store: the run directory, its records and their files.

A leaf package: it imports casslab.errors, casslab.validation, the engine's record types
(:mod:`casslab.engine_contract.engine_records`, pure pydantic) and, for KPIs,
:mod:`casslab.analysis` (pure); never casslab.experiment, casslab.report or casslab.cli. Those read
and write run directories only through it.

* :mod:`.layout`: where each file of a run directory lives (:class:`RunLayout`).
* :mod:`.records`: ``manifest.json`` and ``summary.json`` (:class:`RunManifest`,
  :class:`TrialResult`, :class:`TrialStatus`).
* :mod:`.io`: atomic writes, versioned reads (a newer ``schema_version`` is an error).
* :mod:`.plan_file`: ``plan.json``, the plan's JSON in a versioned envelope, and the
  outline of it the report reads.
* :mod:`.runs`: making a run directory, finding the latest run.
* :mod:`.load`: a whole run directory as :class:`RunData`.
* :mod:`.frames`: pandas views of a :class:`RunData`.
* :mod:`.results`: ``casslab.results.load``, the notebook API.

This module exports the light parts (pydantic and stdlib only); :mod:`.load`,
:mod:`.frames` and :mod:`.results` need pandas and pyarrow: import them by name.
"""

from casslab.store.io import atomic_write, check_schema_version, read_record, write_record
from casslab.store.layout import RUN_DIR_MODE, RunLayout
from casslab.store.plan_file import (
    PLAN_SCHEMA_VERSION,
    CellOutline,
    PlanFile,
    PlanOutline,
    TrialOutline,
    plan_outline,
    read_plan_file,
    write_plan_file,
)
from casslab.store.records import (
    RUN_SCHEMA_VERSION,
    HostFacts,
    RunManifest,
    TrialResult,
    TrialStatus,
    read_manifest,
    read_trial_result,
)
from casslab.store.runs import latest_run, new_run, new_run_id, open_run

__all__ = [
    "PLAN_SCHEMA_VERSION",
    "RUN_DIR_MODE",
    "RUN_SCHEMA_VERSION",
    "CellOutline",
    "HostFacts",
    "PlanFile",
    "PlanOutline",
    "RunLayout",
    "RunManifest",
    "TrialOutline",
    "TrialResult",
    "TrialStatus",
    "atomic_write",
    "check_schema_version",
    "latest_run",
    "new_run",
    "new_run_id",
    "open_run",
    "plan_outline",
    "read_manifest",
    "read_plan_file",
    "read_record",
    "read_trial_result",
    "write_plan_file",
    "write_record",
]
