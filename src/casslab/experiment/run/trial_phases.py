"""One trial's phases on its cluster: reset, schema, JVM warm-up, preload, measure, KPIs.

The runner (:mod:`casslab.experiment.run.runner`) decides which phases a trial needs and in
which order; each function here does one of them with the load engine, the cluster and the
metrics recorder, and reports its start as a :class:`~casslab.experiment.run.events.PhaseStarted`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.analysis.analysis_records import TrialKpis
from casslab.cluster import Cluster, ResetMode
from casslab.engine_contract.engine_records import IntervalRecord, SummaryRecord
from casslab.engine_contract.workload_spec import Connection, Output, WorkloadSpec
from casslab.errors import ExperimentError
from casslab.experiment.design.plan_records import Trial
from casslab.experiment.file.experiment_model import ResetPolicy
from casslab.experiment.run import events, load_clients
from casslab.experiment.run.trial_schema import trial_schema
from casslab.load import credentials
from casslab.load.merge import MergedRun
from casslab.load.session import LoadClients, LoadSession

if TYPE_CHECKING:
    from casslab.experiment.run.recording import LazyRecording
    from casslab.experiment.steps.profile.profile_phase import Profiler
    from casslab.faults.timeline import FaultTimeline


@dataclass
class TrialClock:
    """Wall-clock bounds of the measured phase, from the engine's interval records."""

    measure_start: float | None = None
    measure_end: float | None = None
    intervals: list[IntervalRecord] = field(default_factory=list)

    def since(self, start: float) -> tuple[float | None, float | None]:
        """The measured phase's start and end, in seconds after ``start`` (epoch s)."""
        return (
            None if self.measure_start is None else self.measure_start - start,
            None if self.measure_end is None else self.measure_end - start,
        )


class PhaseTimes:
    """Wall-clock seconds each phase of a trial took (what the lab's overhead is made of)."""

    def __init__(self, trial: Trial, emit: events.EventSink) -> None:
        self.trial = trial
        self.emit = emit
        self.seconds: dict[str, float] = {}

    @contextmanager
    def phase(self, name: str, *, announce: bool = True) -> Iterator[None]:
        """Announce phase ``name`` (unless not ``announce``) and add its duration to
        :attr:`seconds`."""
        if announce:
            self.emit(events.PhaseStarted(trial=self.trial, phase=name))
        start = time.monotonic()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.monotonic() - start


def data_key(trial: Trial, specs: list[WorkloadSpec], data_seed: int) -> str:
    """What a trial's preloaded data depends on: the keyspace, its replication, the table's
    options, the schema the commands create, the preload command and the data seed. Trials
    with equal keys on one cluster start from the same data, captured once and restored."""
    parts = {
        "keyspace": trial.keyspace,
        "replication": trial.replication,
        "table": trial.table.to_cql(),
        "schema": [spec.schema_cql for spec in specs],
        "preload": trial.preload.text if trial.preload else None,
        "data_seed": data_seed,
    }
    text = json.dumps(parts, sort_keys=True, default=str)
    return "data-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def connection_for(cluster: Cluster, trial: Trial) -> Connection:
    """How the trial's engines reach ``cluster``: its contact points, the trial's local
    datacenter, and the login, CA and datacenter the cluster asks of its clients (an
    attached cluster's)."""
    connection = Connection(contact_points=cluster.contact_points, local_dc=trial.local_dc)
    nodes = cluster.nodes
    return credentials.connection_with_access(connection, nodes[0].access if nodes else None)


def reset_data(cluster: Cluster, trial: Trial, *, owned: bool = True) -> None:
    """Bring the cluster's data back to empty by the trial's reset policy. On a cluster
    casslab does not own (``owned`` False) only the trial's keyspace is truncated."""
    if trial.reset is ResetPolicy.NONE:
        return
    if trial.reset is ResetPolicy.RESTART:
        cluster.wipe()
    elif trial.reset is ResetPolicy.RECREATE:
        cluster.reset(ResetMode.DROP)
    else:
        cluster.reset(ResetMode.TRUNCATE, None if owned else [trial.keyspace])


def create_schema(cluster: Cluster, trial: Trial, specs: list[WorkloadSpec]) -> None:
    """Run the trial's schema statements (see
    :func:`~casslab.experiment.run.trial_schema.trial_schema`); :class:`ExperimentError` names the
    statement that failed."""
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


def preload(
    spec: WorkloadSpec,
    trial_dir: Path,
    *,
    timeout_s: float | None,
    session: LoadSession | None = None,
    clients: LoadClients | None = None,
) -> SummaryRecord | None:
    """Load the trial's data with its preload command (the schema exists already), from
    ``clients`` when given, through the run's ``session`` (default: engines placed
    nowhere in particular); the engine's summary (the clients' merged one; None when no
    client finished), whose op count over its duration is the ingest rate."""
    session = session or LoadSession()
    spec = spec.model_copy(update={"schema_cql": []})
    work = trial_dir / "preload"
    if clients is None:
        return session.run(spec, work, timeout_s=timeout_s).summary
    run = load_clients.run_in(
        spec, clients, work, session=session, hdr_log=None, timeout_s=timeout_s
    )
    return run.summary


def measure(
    cluster: Cluster,
    trial: Trial,
    spec: WorkloadSpec,
    trial_dir: Path,
    *,
    hdr_log: Path,
    metrics_path: Path,
    clock: TrialClock,
    recording: LazyRecording,
    timeout_s: float | None,
    emit: events.EventSink,
    session: LoadSession | None = None,
    clients: LoadClients | None = None,
    faults: FaultTimeline | None = None,
    profiler: Profiler | None = None,
    end_after_s: float | None = None,
) -> SummaryRecord:
    """Run the measured workload while ``recording`` samples the nodes and the engine into
    ``metrics_path``; ``clock`` gets the measured phase's bounds and intervals; the engines
    run in the run's ``session``; ``clients``: several load clients, merged
    (:mod:`casslab.experiment.run.load_clients`); ``faults``: a timeline started with the
    measured phase (the engine's start plus its warm-up; the caller stops it);
    ``profiler``: started at the first measured interval (the caller stops it);
    ``end_after_s``: the phase ends that long after ``faults`` are over
    (:mod:`casslab.experiment.steps.faults.phase_end`). Raises
    :class:`ExperimentError` when the engine ends without a summary or a client fails.

    The cluster's samplers (JMX helper, CQL connections) are opened before the engine
    starts, at the first measured phase after the nodes (re)started, and kept for the next
    (:mod:`casslab.experiment.run.recording`): their start-up never lands in a measurement."""
    session = session or LoadSession()
    nodes = recording.of(cluster)
    emit(events.PhaseStarted(trial=trial, phase="measure"))
    spec = spec.model_copy(
        update={
            "schema_cql": [],
            "warmup_s": trial.warmup_s,
            "output": Output(hdr_log=str(hdr_log), interval_s=1.0),
        }
    )
    summary: SummaryRecord | None = None
    end = None
    if faults is not None and end_after_s is not None:
        from casslab.experiment.steps.faults.phase_end import PhaseEnd

        end = PhaseEnd(faults, end_after_s)

    def started(pid: int) -> None:
        if faults is not None:
            faults.start(time.monotonic() + trial.warmup_s)
        if end is not None:
            end.engine_started(pid)
        sampling.add_engine(pid)

    with nodes.measure_phase(metrics_path) as sampling:
        if clients is not None:
            if faults is not None:
                faults.start(time.monotonic() + trial.warmup_s)
            run = load_clients.run_in(
                spec, clients, trial_dir, session=session, hdr_log=hdr_log, timeout_s=timeout_s
            )
            _merged_clock(run, clock, trial, emit)
            assert run.summary is not None  # run_merged raises without one
            return run.summary
        records = session.stream(spec, trial_dir, timeout_s=timeout_s, on_start=started)
        try:
            for record in records:
                if isinstance(record, IntervalRecord):
                    if record.phase == "warmup":
                        continue
                    if profiler is not None and not profiler.running:
                        profiler.start()
                    now = datetime.now(UTC).timestamp()
                    if clock.measure_start is None:
                        clock.measure_start = now - (record.t_end_s - record.t_start_s)
                    clock.measure_end = now
                    clock.intervals.append(record)
                    emit(events.IntervalMeasured(trial=trial, record=record))
                elif isinstance(record, SummaryRecord):
                    summary = record
        finally:
            if end is not None:
                end.close()
    if summary is None:
        raise ExperimentError(
            f"trial {trial.trial_id}: the engine ended without a summary; "
            f"see {trial_dir / 'engine.jsonl'}"
        )
    return summary


def _merged_clock(run: MergedRun, clock: TrialClock, trial: Trial, emit: events.EventSink) -> None:
    """The measured phase's bounds and intervals from the clients' merged records (their
    times count from the merged log's base time)."""
    base = run.base_time_s or 0.0
    for record in run.intervals:
        if clock.measure_start is None:
            clock.measure_start = base + record.t_start_s
        clock.measure_end = base + record.t_end_s
        clock.intervals.append(record)
        emit(events.IntervalMeasured(trial=trial, record=record))


def measured_kpis(
    trial: Trial,
    labels: dict[str, str],
    summary: SummaryRecord,
    clock: TrialClock,
    metrics_path: Path,
    hdr_log: Path,
) -> TrialKpis:
    """The trial's KPIs (:func:`casslab.analysis.trial_kpis`) over the steady part of its
    measured phase (MSER-5 on its intervals), from the engine's records, its latency log
    and the metrics sampled during the measured phase; with the steady state found."""
    # here, not at the top: the statistics behind the KPIs (scipy) take seconds to import,
    # which a run or a tuning run refused before its first trial need not wait for
    from casslab.analysis import trial_kpis

    frame = None
    if metrics_path.exists():
        from casslab.metrics.store import load

        frame = load(metrics_path)
    return trial_kpis(
        trial_id=trial.trial_id,
        cell_id=trial.cell_id,
        iteration=trial.iteration,
        factors=labels,
        summary=summary,
        intervals=clock.intervals,
        metrics=frame,
        start=clock.measure_start,
        end=clock.measure_end,
        hlog=hdr_log.read_text(encoding="utf-8") if hdr_log.is_file() else None,
    )
