"""One trial's phases on its cluster: reset, schema, JVM warm-up, preload, measure, KPIs.

The runner (:mod:`casslab.experiment.runner`) decides which phases a trial needs and in
which order; each function here does one of them with the load engine, the cluster and the
metrics recorder, and reports its start as a :class:`~casslab.experiment.events.PhaseStarted`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.analysis import trial_kpis
from casslab.cluster import Cluster, ResetMode
from casslab.errors import ExperimentError
from casslab.experiment import events
from casslab.experiment.model import ResetPolicy
from casslab.experiment.plan_records import Trial
from casslab.experiment.schema import trial_schema
from casslab.load import engine
from casslab.load.records import IntervalRecord, SummaryRecord
from casslab.load.spec import Output, Stop, WorkloadSpec

if TYPE_CHECKING:
    from casslab.metrics.source import Source

SourceFactory = Callable[[Cluster, int], "list[Source]"]
"""The metrics samplers of a cluster's nodes and of the engine with that PID."""


def default_sources(cluster: Cluster, engine_pid: int) -> list[Source]:
    """Host, process, cgroup, CQL and JMX samplers of every node, and the engine's."""
    from casslab.metrics.sources import build_sources, targets_from_nodes

    return list(build_sources(targets_from_nodes(cluster.nodes), engine_pid=engine_pid))


@dataclass
class TrialClock:
    """Wall-clock bounds of the measured phase, from the engine's interval records."""

    measure_start: float | None = None
    measure_end: float | None = None
    intervals: list[IntervalRecord] = field(default_factory=list)


def reset_data(cluster: Cluster, trial: Trial, emit: events.EventSink) -> None:
    """Bring the cluster's data back to empty by the trial's reset policy."""
    emit(events.PhaseStarted(trial=trial, phase="reset"))
    if trial.reset is ResetPolicy.RESTART:
        cluster.wipe()
    elif trial.reset is ResetPolicy.RECREATE:
        cluster.reset(ResetMode.DROP)
    else:
        cluster.reset(ResetMode.TRUNCATE)


def create_schema(cluster: Cluster, trial: Trial, specs: list[WorkloadSpec]) -> None:
    """Run the trial's schema statements (see :func:`~casslab.experiment.schema.trial_schema`);
    :class:`ExperimentError` names the statement that failed."""
    statements = trial_schema(
        [spec.schema_cql for spec in specs], trial.replication, trial.table.to_cql()
    )
    session = cluster.session()
    statement = ""
    try:
        for statement in statements:
            session.execute(statement, timeout=60)
    except Exception as error:  # the driver raises many types; name the statement
        raise ExperimentError(
            f"trial {trial.trial_id}: creating the schema failed at {statement!r}: {error}"
        ) from error
    finally:
        cluster.close_sessions()


def warm_jvm(
    cluster: Cluster,
    trial: Trial,
    specs: list[WorkloadSpec],
    trial_dir: Path,
    *,
    duration_s: float,
    timeout_s: float | None,
    emit: events.EventSink,
) -> None:
    """Run the trial's workload for ``duration_s`` on nodes that just started, and discard
    it: the first trial after a start would otherwise meet a JVM that has not compiled its
    hot paths yet (a cold-start bias the run order cannot remove)."""
    emit(events.PhaseStarted(trial=trial, phase="jvm warm-up"))
    create_schema(cluster, trial, specs)
    warmup = specs[-1].model_copy(
        update={
            "schema_cql": [],
            "warmup_s": 0.0,
            "stop": Stop(duration_s=duration_s),
            "output": Output(),
        }
    )
    engine.run(warmup, trial_dir / "jvm-warmup", timeout_s=timeout_s)


def preload(
    trial: Trial,
    spec: WorkloadSpec,
    trial_dir: Path,
    *,
    timeout_s: float | None,
    emit: events.EventSink,
) -> None:
    """Load the trial's data with its preload command (the schema exists already)."""
    emit(events.PhaseStarted(trial=trial, phase="preload"))
    engine.run(
        spec.model_copy(update={"schema_cql": []}),
        trial_dir / "preload",
        timeout_s=timeout_s,
    )


def measure(
    cluster: Cluster,
    trial: Trial,
    spec: WorkloadSpec,
    trial_dir: Path,
    *,
    hdr_log: Path,
    metrics_path: Path,
    clock: TrialClock,
    sources: SourceFactory,
    metrics_interval_s: float,
    timeout_s: float | None,
    emit: events.EventSink,
) -> SummaryRecord:
    """Run the measured workload while the metrics recorder samples the nodes and the
    engine into ``metrics_path``; ``clock`` gets the measured phase's bounds and intervals.
    Raises :class:`ExperimentError` when the engine ends without a summary."""
    from casslab.metrics.sampling import Recorder
    from casslab.metrics.store import ParquetSink

    emit(events.PhaseStarted(trial=trial, phase="measure"))
    spec = spec.model_copy(
        update={
            "schema_cql": [],
            "warmup_s": trial.warmup_s,
            "output": Output(hdr_log=str(hdr_log), interval_s=1.0),
        }
    )
    recorder: Recorder | None = None
    summary: SummaryRecord | None = None
    engine_pids: list[int] = []
    try:
        records = engine.stream(
            spec,
            trial_dir,
            timeout_s=timeout_s,
            on_start=engine_pids.append,
        )
        for record in records:
            now = datetime.now(UTC).timestamp()
            if recorder is None:
                recorder = Recorder(
                    sources(cluster, engine_pids[0]),
                    ParquetSink(metrics_path),
                    interval_s=metrics_interval_s,
                )
                recorder.start()
            if isinstance(record, IntervalRecord):
                if record.phase == "warmup":
                    continue
                if clock.measure_start is None:
                    clock.measure_start = now - (record.t_end_s - record.t_start_s)
                clock.measure_end = now
                clock.intervals.append(record)
                emit(events.IntervalMeasured(trial=trial, record=record))
            elif isinstance(record, SummaryRecord):
                summary = record
    finally:
        if recorder is not None:
            recorder.stop()
    if summary is None:
        raise ExperimentError(
            f"trial {trial.trial_id}: the engine ended without a summary; "
            f"see {trial_dir / 'engine.jsonl'}"
        )
    return summary


def measured_kpis(
    trial: Trial,
    labels: dict[str, str],
    summary: SummaryRecord,
    clock: TrialClock,
    metrics_path: Path,
) -> dict[str, float | None]:
    """The trial's KPIs (:func:`casslab.analysis.trial_kpis`) from the engine's records and
    the metrics sampled during the measured phase."""
    frame = None
    if metrics_path.exists():
        from casslab.metrics.store import load

        frame = load(metrics_path)
    kpis = trial_kpis(
        trial_id=trial.trial_id,
        cell_id=trial.cell_id,
        iteration=trial.iteration,
        factors=labels,
        summary=summary,
        intervals=clock.intervals,
        metrics=frame,
        start=clock.measure_start,
        end=clock.measure_end,
    )
    return dict(kpis.kpis)
