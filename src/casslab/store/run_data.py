"""Reading a whole run directory into one :class:`RunData`.

:func:`read_run` reads ``manifest.json``, ``plan.json`` (its outline), every
``trials/<cell>/<iteration>/summary.json`` (:class:`~casslab.store.run_records.TrialResult`),
each trial's ``engine.jsonl`` interval records and, when present, its ``metrics.parquet``
(long format: time, node, metric, value), and the names of its server profiles
(``profile/node<N>-<kind>.collapsed`` and ``.svg``: :func:`read_profiles`). A failed or
interrupted trial may lack any of its files except ``summary.json``: what is missing or
unreadable is noted in :attr:`TrialData.problems` and the report shows it; it never stops
the report. A file written by a newer casslab always stops it
(:class:`~casslab.errors.NewerSchemaError`).

A run written before ``plan.json`` existed has no plan: ``legacy_plan``, when given,
makes an outline from the manifest's resolved experiment (the CLI passes the experiment
package's expansion; the store cannot expand an experiment itself), and
:attr:`RunData.plan_note` says where the plan came from, or why there is none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from casslab import __version__
from casslab.engine_contract.engine_records import (
    EngineRecord,
    ErrorRecord,
    IntervalRecord,
    SummaryRecord,
)
from casslab.engine_contract.workload_spec import SCHEMA_VERSION as ENGINE_SCHEMA_VERSION
from casslab.errors import CasslabError, NewerSchemaError, StoreError
from casslab.record import Record
from casslab.store.io import check_schema_version
from casslab.store.layout import RunLayout
from casslab.store.plan_file import PlanOutline, plan_outline, read_plan_file
from casslab.store.run_records import RunManifest, TrialResult, read_manifest, read_trial_result
from casslab.validation import validation_message

METRICS_COLUMNS = ("time", "node", "metric", "value")

_RECORD: TypeAdapter[EngineRecord] = TypeAdapter(EngineRecord)

LegacyPlan = Callable[[RunManifest], PlanOutline]
"""The plan of a run without ``plan.json``, from its manifest's resolved experiment."""


class FaultSpan(Record):
    """One fault's window in a trial, in seconds of its measured phase (``faults.json``)."""

    kind: str
    target: int | str  # a node; a partition's datacenter or link
    start_s: float
    end_s: float

    @property
    def label(self) -> str:
        what = f"node {self.target}" if isinstance(self.target, int) else self.target
        return f"{self.kind} {what}"


def read_faults(path: Path) -> tuple[list[FaultSpan], list[str]]:
    """The fault windows of a trial's ``faults.json`` and any problem reading it."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        spans = [
            FaultSpan(
                kind=str(w["kind"]),
                target=w["target"] if isinstance(w["target"], str) else int(w["target"]),
                start_s=float(w["start_s"]),
                end_s=float(w["end_s"]),
            )
            for w in document.get("windows", [])
        ]
    except (OSError, ValueError, KeyError, TypeError, ValidationError) as error:
        return [], [f"{path.name}: cannot read ({error})"]
    return spans, []


class ProfileFile(Record):
    """One node's profile of one kind in a trial: its collapsed stacks and, when drawn, its
    flame graph. ``kind`` is the profile kind's name (``cpu``, ``alloc``, ``lock``, ``wall``)."""

    node: int
    kind: str
    stacks_path: Path
    svg_path: Path | None = None


_PROFILE_NAME = re.compile(r"node(\d+)-([a-z]+)\.collapsed")


def read_profiles(directory: Path) -> list[ProfileFile]:
    """The profiles in a trial's ``profile/`` folder, by node then kind (none: no folder)."""
    if not directory.is_dir():
        return []
    out: list[ProfileFile] = []
    for path in directory.glob("node*-*.collapsed"):
        found = _PROFILE_NAME.fullmatch(path.name)
        if found is None:
            continue
        svg = path.with_suffix(".svg")
        out.append(
            ProfileFile(
                node=int(found.group(1)),
                kind=found.group(2),
                stacks_path=path,
                svg_path=svg if svg.is_file() else None,
            )
        )
    return sorted(out, key=lambda p: (p.node, p.kind))


class TrialData(BaseModel):
    """One trial as found on disk: its summary, its interval series and its metrics."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    result: TrialResult
    intervals: tuple[IntervalRecord, ...] = ()
    engine_summary: SummaryRecord | None = None  # the engine's own summary line, if any
    engine_errors: tuple[str, ...] = ()  # messages of the engine's error records
    metrics: pd.DataFrame | None = None  # columns time (Unix s), node, metric, value
    faults: tuple[FaultSpan, ...] = ()  # the windows of its faults.json, if any
    profiles: tuple[ProfileFile, ...] = ()  # its nodes' server profiles (profile:)
    problems: tuple[str, ...] = ()  # files missing or unreadable, for the report

    @property
    def start_unix_s(self) -> float:
        """The trial's start as Unix seconds (the zero of its time axes)."""
        return self.result.started_at.timestamp()


class RunData(BaseModel):
    """A whole run directory, read: the input of the report and of ``casslab.results``."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    root: Path
    manifest: RunManifest
    trials: tuple[TrialData, ...]
    plan: PlanOutline | None = None  # None: no plan.json and no legacy expansion
    plan_note: str = ""  # why the plan is not plan.json's, when it is not
    problems: tuple[str, ...] = ()  # summaries that could not be read


def _manifest(layout: RunLayout) -> RunManifest:
    if not layout.manifest.is_file():
        raise StoreError(
            f"read run {layout.root}: {layout.manifest.name} not found; give the run "
            "directory that `casslab run` wrote (results/<experiment>/<run-id>)"
        )
    return read_manifest(layout.manifest)


def _plan(
    layout: RunLayout, manifest: RunManifest, legacy_plan: LegacyPlan | None
) -> tuple[PlanOutline | None, str]:
    """The run's plan outline and, when it is not plan.json's, a note saying why."""
    try:
        stored = read_plan_file(layout)
        if stored is not None:
            return plan_outline(layout, stored), ""
        why = (
            f"{layout.plan.name} is missing (the run was written by a casslab before "
            "plan.json existed)"
        )
    except NewerSchemaError:
        raise
    except StoreError as error:
        why = f"{layout.plan.name} is unreadable ({error.detail})"
    if legacy_plan is None:
        return None, why
    try:
        outline = legacy_plan(manifest)
    except (CasslabError, ValueError, ValidationError) as error:
        detail = (
            validation_message(error)
            if isinstance(error, ValidationError)
            else str(error).splitlines()[0]
        )
        return None, f"{why}, and the manifest's experiment could not be expanded ({detail})"
    return outline, (
        f"{why}; the cell order and the baseline come from expanding the manifest's "
        f"experiment with this casslab ({__version__})"
    )


def read_engine_jsonl(
    path: Path,
) -> tuple[list[IntervalRecord], SummaryRecord | None, list[str], list[str]]:
    """Intervals, summary, engine error messages and problems from one ``engine.jsonl``.

    An unreadable line (a crash can cut the last one) is skipped and noted as a problem;
    a record of a newer engine raises :class:`~casslab.errors.NewerSchemaError`.
    """
    intervals: list[IntervalRecord] = []
    summary: SummaryRecord | None = None
    errors: list[str] = []
    problems: list[str] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = _RECORD.validate_json(line)
            except ValidationError as error:
                _check_engine_version(path, line)
                first = error.errors()[0]["msg"] if error.errors() else str(error)
                problems.append(f"{path.name} line {number}: unreadable record ({first}); skipped")
                continue
            if isinstance(record, IntervalRecord):
                intervals.append(record)
            elif isinstance(record, SummaryRecord):
                summary = record
            elif isinstance(record, ErrorRecord):
                errors.append(record.message)
    return intervals, summary, errors, problems


def _check_engine_version(path: Path, line: str) -> None:
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return
    if isinstance(data, dict):
        check_schema_version(path, data.get("schema_version"), ENGINE_SCHEMA_VERSION, "engine")


def read_metrics(path: Path) -> pd.DataFrame:
    """A trial's ``metrics.parquet`` as a frame with columns time, node, metric, value."""
    table = pq.read_table(path)
    missing = [c for c in METRICS_COLUMNS if c not in table.column_names]
    if missing:
        raise StoreError(
            f"read metrics {path}: columns {missing} are missing; the file needs "
            f"{list(METRICS_COLUMNS)} (written by casslab.metrics.store)"
        )
    frame: pd.DataFrame = table.select(list(METRICS_COLUMNS)).to_pandas()
    if pd.api.types.is_datetime64_any_dtype(frame["time"]):
        frame["time"] = frame["time"].map(lambda t: t.timestamp()).astype(float)
    return frame


def _read_trial(layout: RunLayout, result: TrialResult) -> TrialData:
    problems: list[str] = []
    intervals: list[IntervalRecord] = []
    summary: SummaryRecord | None = None
    engine_errors: list[str] = []
    jsonl = layout.engine_jsonl(result.cell_id, result.iteration)
    if jsonl.is_file():
        try:
            intervals, summary, engine_errors, line_problems = read_engine_jsonl(jsonl)
        except (OSError, UnicodeDecodeError) as error:
            line_problems = [f"{jsonl.name}: cannot read ({error})"]
        problems.extend(line_problems)
    else:
        problems.append(f"{jsonl.name} is missing")
    metrics: pd.DataFrame | None = None
    parquet = layout.metrics_parquet(result.cell_id, result.iteration)
    if parquet.is_file():
        try:
            metrics = read_metrics(parquet)
        except (OSError, pa.ArrowException, StoreError) as error:
            problems.append(f"{parquet.name}: cannot read ({error})")
    else:
        problems.append(f"{parquet.name} is missing")
    faults: list[FaultSpan] = []
    faults_file = layout.faults_json(result.cell_id, result.iteration)
    if faults_file.is_file():
        faults, fault_problems = read_faults(faults_file)
        problems.extend(fault_problems)
    return TrialData(
        result=result,
        intervals=tuple(intervals),
        engine_summary=summary,
        engine_errors=tuple(engine_errors),
        metrics=metrics,
        faults=tuple(faults),
        profiles=tuple(read_profiles(layout.profile_dir(result.cell_id, result.iteration))),
        problems=tuple(problems),
    )


def read_run(run_dir: Path | str, *, legacy_plan: LegacyPlan | None = None) -> RunData:
    """Read a run directory (see the module docstring); trials in run order.

    Raises :class:`~casslab.errors.StoreError` when the manifest is missing or invalid,
    :class:`~casslab.errors.NewerSchemaError` when any file is of a newer casslab.
    """
    layout = RunLayout(root=Path(run_dir))
    manifest = _manifest(layout)
    plan, plan_note = _plan(layout, manifest, legacy_plan)
    results: list[TrialResult] = []
    problems: list[str] = []
    for path in layout.trial_summaries():
        try:
            results.append(read_trial_result(path))
        except NewerSchemaError:
            raise
        except StoreError as error:
            where = path.relative_to(layout.root)
            problems.append(
                f"{where}: not a trial summary ({error.detail}); its trial is left out of "
                "the report"
            )
    results.sort(key=lambda r: (r.order_index, r.cell_id, r.iteration))
    trials = tuple(_read_trial(layout, result) for result in results)
    return RunData(
        root=layout.root,
        manifest=manifest,
        trials=trials,
        plan=plan,
        plan_note=plan_note,
        problems=tuple(problems),
    )
