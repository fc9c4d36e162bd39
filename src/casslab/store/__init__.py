"""casslab.store: the run directory, its records and their files.

A leaf above the ground floor and the engine contract: it imports the ground floor
(``casslab.errors``, ``casslab.record``, ``casslab.validation``, ...) and the engine's record
types (:mod:`casslab.engine_contract`, pure pydantic), nothing else of casslab. Everything
above reads and writes run directories through it.

* :mod:`.layout`: where each file of a run directory lives (:class:`RunLayout`).
* :mod:`.run_records`: ``manifest.json`` and ``summary.json`` (:class:`RunManifest`,
  :class:`TrialResult`, :class:`TrialStatus`).
* :mod:`.io`: atomic writes, versioned reads (a newer ``schema_version`` is an error).
* :mod:`.plan_file`: ``plan.json``, the plan's JSON in a versioned envelope, and the
  outline of it the report reads.
* :mod:`.runs`: making a run directory, finding the latest run.
* :mod:`.run_data`: a whole run directory read as :class:`RunData` (:func:`read_run`).

Pandas views of a run with its KPIs are :mod:`casslab.analysis.run_frames`; the notebook API
is :mod:`casslab.results`. This module exports the light parts (pydantic and stdlib only);
:mod:`.run_data` needs pandas and pyarrow: import it by name.
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
from casslab.store.run_records import (
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
