"""Reading a run directory: the one module of :mod:`casslab.report` that touches files.

:func:`load_run` reads ``manifest.json``, every ``trials/<cell>/<iteration>/summary.json``
(:class:`~casslab.experiment.records.TrialResult`), each trial's ``engine.jsonl`` interval
records and, when present, its ``metrics.parquet`` (long format: time, node, metric,
value) into one :class:`RunData`. A failed or interrupted trial may lack any of its files
except ``summary.json``: what is missing or unreadable is noted in
:attr:`TrialData.problems` and the report shows it; it never stops the report.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from casslab.errors import ReportError
from casslab.experiment.records import RunLayout, RunManifest, TrialResult
from casslab.load.spec import EngineRecord, ErrorRecord, IntervalRecord, SummaryRecord

METRICS_COLUMNS = ("time", "node", "metric", "value")

_RECORD: TypeAdapter[EngineRecord] = TypeAdapter(EngineRecord)


class TrialData(BaseModel):
    """One trial as found on disk: its summary, its interval series and its metrics."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    result: TrialResult
    intervals: tuple[IntervalRecord, ...] = ()
    engine_summary: SummaryRecord | None = None  # the engine's own summary line, if any
    engine_errors: tuple[str, ...] = ()  # messages of the engine's error records
    metrics: pd.DataFrame | None = None  # columns time (Unix s), node, metric, value
    problems: tuple[str, ...] = ()  # files missing or unreadable, for the report

    @property
    def start_unix_s(self) -> float:
        """The trial's start as Unix seconds (the zero of its time axes)."""
        return self.result.started_at.timestamp()


class RunData(BaseModel):
    """A whole run directory, read: the input of :func:`casslab.report.build.build_report`."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    root: Path
    manifest: RunManifest
    trials: tuple[TrialData, ...]
    problems: tuple[str, ...] = ()  # summaries that could not be read


def _read_manifest(layout: RunLayout) -> RunManifest:
    path = layout.manifest
    if not path.is_file():
        raise ReportError(
            f"read run {layout.root}: {path.name} not found; give the run directory that "
            "`casslab run` wrote (results/<experiment>/<run-id>)"
        )
    try:
        return RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as error:
        raise ReportError(
            f"read run {layout.root}: {path} is not a casslab run manifest ({error}); "
            "check that the directory was written by this casslab version"
        ) from error


def read_engine_jsonl(
    path: Path,
) -> tuple[list[IntervalRecord], SummaryRecord | None, list[str], list[str]]:
    """Intervals, summary, engine error messages and problems from one ``engine.jsonl``.

    An unreadable line (a crash can cut the last one) is skipped and noted as a problem.
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


def read_metrics(path: Path) -> pd.DataFrame:
    """A trial's ``metrics.parquet`` as a frame with columns time, node, metric, value."""
    table = pq.read_table(path)
    missing = [c for c in METRICS_COLUMNS if c not in table.column_names]
    if missing:
        raise ReportError(
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
        except (OSError, pa.ArrowException, ReportError) as error:
            problems.append(f"{parquet.name}: cannot read ({error})")
    else:
        problems.append(f"{parquet.name} is missing")
    return TrialData(
        result=result,
        intervals=tuple(intervals),
        engine_summary=summary,
        engine_errors=tuple(engine_errors),
        metrics=metrics,
        problems=tuple(problems),
    )


def load_run(run_dir: Path | str) -> RunData:
    """Read a run directory (see the module docstring); trials in run order.

    Raises :class:`~casslab.errors.ReportError` when the manifest is missing or invalid.
    """
    layout = RunLayout(root=Path(run_dir))
    manifest = _read_manifest(layout)
    results: list[TrialResult] = []
    problems: list[str] = []
    # trials/<cell>/<iteration>/summary.json only: a trial's subdirectories (preload) are not trials
    trials_dir = layout.trials_dir
    summaries = sorted(trials_dir.glob("*/*/summary.json")) if trials_dir.is_dir() else []
    for path in summaries:
        try:
            results.append(TrialResult.model_validate_json(path.read_text(encoding="utf-8")))
        except (OSError, ValidationError, json.JSONDecodeError) as error:
            where = path.relative_to(layout.root)
            problems.append(f"{where}: not a trial summary ({str(error).splitlines()[0]}); skipped")
    results.sort(key=lambda r: (r.order_index, r.cell_id, r.iteration))
    trials = tuple(_read_trial(layout, result) for result in results)
    return RunData(root=layout.root, manifest=manifest, trials=trials, problems=tuple(problems))
