"""The trial runner: for each trial, ensure the cluster, create the schema, preload, warm
up, measure (engine + metrics), collect, and write the trial at once.

I/O lives here; what to run comes from the plan (:mod:`casslab.experiment.plan`), what a
trial's numbers are from :mod:`casslab.analysis`. A crash or Ctrl-C loses at most the trial
in flight: every finished trial has its ``summary.json``, and ``resume`` skips those.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

import psutil

from casslab import __version__
from casslab.analysis import trial_kpis
from casslab.cluster import ClusterSpec, LocalCluster
from casslab.errors import CasslabError, ClusterError, ExperimentError
from casslab.experiment import events
from casslab.experiment.host import git_revision, host_facts
from casslab.experiment.model import Experiment, ResetPolicy
from casslab.experiment.plan import Command, Plan, Tool, Trial, expand, pending
from casslab.experiment.records import RunLayout, RunManifest, TrialResult, TrialStatus
from casslab.load import engine
from casslab.load.spec import (
    Connection,
    IntervalRecord,
    Output,
    Stop,
    SummaryRecord,
    WorkloadSpec,
)

EventSink = Callable[[events.Event], None]
_CREATE_KEYSPACE = re.compile(r"^\s*CREATE\s+KEYSPACE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\S+)", re.I)
_CREATE_TABLE = re.compile(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([^\s(]+)", re.I)


@dataclass(frozen=True)
class RunnerOptions:
    """How the runner places its cluster and output."""

    results_root: Path = Path("results")
    cluster_root: Path | None = None  # None: casslab's clusters directory
    base_address: str = "127.0.0.1"
    jmx_port_base: int = 7190
    keep_cluster: bool = False  # leave the nodes running after the run
    metrics_interval_s: float = 1.0
    trial_timeout_s: float | None = None  # per engine phase; None: from the workload
    write_report: bool = True
    base_dir: Path | None = None  # the experiment file's folder: profiles are relative to it
    jvm_warmup_s: float = 30.0  # discarded load after nodes (re)start; 0 turns it off


def new_run_id(now: datetime) -> str:
    return now.strftime("%Y%m%dT%H%M%SZ")


def spec_for(
    command: Command, connection: Connection, seed: int, base_dir: Path | None = None
) -> WorkloadSpec:
    """The engine spec of a stress or YCSB command; files it names (a user profile, a
    YCSB ``-P`` file) are read relative to ``base_dir``, the experiment file's folder."""
    if command.tool is Tool.YCSB:
        from casslab.experiment.loader import file_reader
        from casslab.load.ycsb import parse_ycsb

        tokens = shlex.split(command.text)
        if tokens and tokens[0].lower() == "ycsb":
            tokens = tokens[1:]
        parsed = parse_ycsb(tokens, read_file=file_reader(base_dir))
        return parsed.to_spec(connection, seed=seed)
    from casslab.load.stress import parse_stress

    return parse_stress(command.text).to_spec(connection, seed=seed, profile_dir=base_dir)


def schema_statements(spec: WorkloadSpec, replication: dict[str, str | int]) -> list[str]:
    """The workload's schema with the experiment's replication for every keyspace."""
    replication_cql = "{" + ", ".join(f"'{k}': '{v}'" for k, v in replication.items()) + "}"
    statements: list[str] = []
    for statement in spec.schema_cql:
        match = _CREATE_KEYSPACE.match(statement)
        if match:
            statements.append(
                f"CREATE KEYSPACE IF NOT EXISTS {match.group(1)} "
                f"WITH replication = {replication_cql}"
            )
        else:
            statements.append(statement)
    return statements


def tables_of(statements: list[str]) -> list[str]:
    return [m.group(1) for s in statements if (m := _CREATE_TABLE.match(s))]


class _Started(Enum):
    """What :meth:`Runner._ensure_cluster` did to the nodes."""

    NO = "no"  # they were running with the trial's configuration
    NEW = "new"  # a new, empty cluster
    RESTARTED = "restarted"  # restarted with changed settings; their data is still there


@dataclass
class _TrialClock:
    """Wall-clock bounds of the measured phase, from the engine's interval records."""

    measure_start: float | None = None
    measure_end: float | None = None
    intervals: list[IntervalRecord] = field(default_factory=list)


class Runner:
    """Runs the pending trials of a plan into one run directory."""

    def __init__(
        self,
        experiment: Experiment,
        layout: RunLayout,
        options: RunnerOptions,
        on_event: EventSink | None = None,
    ) -> None:
        self.experiment = experiment
        self.plan: Plan = expand(experiment)
        self.layout = layout
        self.options = options
        self._emit = on_event or (lambda _event: None)
        self.cluster: LocalCluster | None = None
        self._cluster_key: tuple[int, str | None, str | None] | None = None

    # ------------------------------------------------------------------ run

    def finished_trials(self) -> set[str]:
        done: set[str] = set()
        for path in self.layout.trials_dir.glob("*/*/summary.json"):
            try:
                result = TrialResult.model_validate_json(path.read_text())
            except ValueError:
                continue
            if result.status is TrialStatus.OK:
                done.add(result.trial_id)
        return done

    def run(self) -> RunLayout:
        """Run every trial not yet finished; write the tables and the report at the end."""
        manifest = self._write_manifest()
        todo = pending(self.plan, self.finished_trials())
        self._emit(events.RunStarted(total=len(self.plan.trials), pending=len(todo)))
        engine_version = manifest.engine_version
        try:
            for index, trial in enumerate(todo):
                self._emit(events.TrialStarted(trial=trial, index=index, count=len(todo)))
                result = self._run_trial(trial)
                if result.engine is not None:
                    engine_version = result.engine.engine_version
                self._emit(events.TrialFinished(trial=trial, result=result))
        finally:
            self._finish_cluster()
            self._write_manifest(
                manifest.model_copy(
                    update={"ended_at": datetime.now(UTC), "engine_version": engine_version}
                )
            )
        self._write_outputs()
        self._emit(events.RunFinished(root=self.layout.root))
        return self.layout

    # ------------------------------------------------------------------ one trial

    def _run_trial(self, trial: Trial) -> TrialResult:
        started = datetime.now(UTC)
        trial_dir = self.layout.trial_dir(trial.cell_id, trial.iteration)
        if trial_dir.exists():
            shutil.rmtree(trial_dir)  # a half-written trial from an interrupted run
        trial_dir.mkdir(parents=True)
        cell = self.plan.cell(trial.cell_id)
        clock = _TrialClock()
        summary: SummaryRecord | None = None
        metrics_path = self.layout.metrics_parquet(trial.cell_id, trial.iteration)
        identity: dict[str, Any] = {
            "trial_id": trial.trial_id,
            "cell_id": trial.cell_id,
            "iteration": trial.iteration,
            "order_index": trial.position,
            "factors": dict(cell.labels),
        }
        try:
            cluster, nodes_started = self._ensure_cluster(trial)
            connection = Connection(contact_points=cluster.contact_points)
            measure = spec_for(trial.workload, connection, trial.iteration, self.options.base_dir)
            preload = (
                spec_for(trial.preload, connection, 0, self.options.base_dir)
                if trial.preload is not None
                else None
            )
            specs = [s for s in (preload, measure) if s]
            warm = (
                nodes_started is not _Started.NO
                and self.options.jvm_warmup_s > 0
                and trial.reset is not ResetPolicy.RESTART  # that policy asks for cold nodes
            )
            if warm:
                self._warm_jvm(cluster, trial, specs, trial_dir)
            if warm or nodes_started is not _Started.NEW:
                self._reset(cluster, trial)
            self._create_schema(cluster, trial, specs)
            if preload is not None:
                self._emit(events.PhaseStarted(trial=trial, phase="preload"))
                engine.run(
                    preload.model_copy(update={"schema_cql": []}),
                    trial_dir / "preload",
                    timeout_s=self.options.trial_timeout_s,
                )
            self._emit(events.PhaseStarted(trial=trial, phase="measure"))
            summary = self._measure(cluster, trial, measure, trial_dir, metrics_path, clock)
            kpis = self._kpis(trial, cell.labels, summary, clock, metrics_path)
            result = TrialResult(
                **identity,
                status=TrialStatus.OK,
                started_at=started,
                ended_at=datetime.now(UTC),
                measure_start_s=_relative(clock.measure_start, started),
                measure_end_s=_relative(clock.measure_end, started),
                engine=summary,
                kpis=kpis,
            )
        except CasslabError as error:
            result = TrialResult(
                **identity,
                status=TrialStatus.FAILED,
                error=str(error),
                started_at=started,
                ended_at=datetime.now(UTC),
                engine=summary,
            )
            if isinstance(error, ClusterError):
                self._cluster_key = None  # rebuild the cluster for the next trial
        _atomic_write(
            self.layout.trial_summary(trial.cell_id, trial.iteration),
            result.model_dump_json(indent=2),
        )
        return result

    def _measure(
        self,
        cluster: LocalCluster,
        trial: Trial,
        spec: WorkloadSpec,
        trial_dir: Path,
        metrics_path: Path,
        clock: _TrialClock,
    ) -> SummaryRecord:
        from casslab.metrics.sampling import Recorder
        from casslab.metrics.sources import build_sources, targets_from_nodes
        from casslab.metrics.store import ParquetSink

        spec = spec.model_copy(
            update={
                "schema_cql": [],
                "warmup_s": trial.warmup_s,
                "output": Output(
                    hdr_log=str(self.layout.latency_hlog(trial.cell_id, trial.iteration)),
                    interval_s=1.0,
                ),
            }
        )
        recorder: Recorder | None = None
        summary: SummaryRecord | None = None
        try:
            for record in engine.stream(spec, trial_dir, timeout_s=self.options.trial_timeout_s):
                now = datetime.now(UTC).timestamp()
                if recorder is None:
                    sources = build_sources(
                        targets_from_nodes(cluster.nodes), engine_pid=_engine_pid()
                    )
                    recorder = Recorder(
                        sources,
                        ParquetSink(metrics_path),
                        interval_s=self.options.metrics_interval_s,
                    )
                    recorder.start()
                if isinstance(record, IntervalRecord):
                    if record.phase == "warmup":
                        continue
                    if clock.measure_start is None:
                        clock.measure_start = now - (record.t_end_s - record.t_start_s)
                    clock.measure_end = now
                    clock.intervals.append(record)
                    self._emit(events.IntervalMeasured(trial=trial, record=record))
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

    def _kpis(
        self,
        trial: Trial,
        labels: dict[str, str],
        summary: SummaryRecord,
        clock: _TrialClock,
        metrics_path: Path,
    ) -> dict[str, float | None]:
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

    # ------------------------------------------------------------------ cluster

    def _ensure_cluster(self, trial: Trial) -> tuple[LocalCluster, _Started]:
        """The trial's cluster: created when the node count, heap or version changes,
        restarted when its cassandra.yaml settings change."""
        key = (trial.nodes, trial.heap, trial.version)
        cluster = self.cluster
        if cluster is None or self._cluster_key != key:
            if cluster is not None:
                self._emit(events.ClusterChanged(trial=trial, action="recreate"))
                cluster.destroy()
            self._emit(events.ClusterChanged(trial=trial, action="start"))
            spec = ClusterSpec(
                name=f"run-{self.experiment.name}"[:64],
                nodes=trial.nodes,
                heap=trial.heap,
                version=trial.version,
                settings=trial.settings,
                base_address=self.options.base_address,
                jmx_port_base=self.options.jmx_port_base,
            )
            self._stop_stale(spec.name)
            cluster = LocalCluster.create(spec, self.options.cluster_root)
            self.cluster, self._cluster_key = cluster, key
            return cluster, _Started.NEW
        if cluster.state.settings != trial.settings:
            self._emit(events.ClusterChanged(trial=trial, action="restart"))
            cluster.restart(trial.settings)
            return cluster, _Started.RESTARTED
        return cluster, _Started.NO

    def _warm_jvm(
        self, cluster: LocalCluster, trial: Trial, specs: list[WorkloadSpec], trial_dir: Path
    ) -> None:
        """Run the trial's workload for ``jvm_warmup_s`` on nodes that just started, and
        discard it: the first trial after a start would otherwise meet a JVM that has not
        compiled its hot paths yet (a cold-start bias the run order cannot remove)."""
        self._emit(events.PhaseStarted(trial=trial, phase="jvm warm-up"))
        self._create_schema(cluster, trial, specs)
        warmup = specs[-1].model_copy(
            update={
                "schema_cql": [],
                "warmup_s": 0.0,
                "stop": Stop(duration_s=self.options.jvm_warmup_s),
                "output": Output(),
            }
        )
        engine.run(warmup, trial_dir / "jvm-warmup", timeout_s=self.options.trial_timeout_s)

    def _stop_stale(self, name: str) -> None:
        """Stop the nodes a killed earlier run of this experiment left running (they are
        this runner's own cluster, found by name in its state file, stopped by PID)."""
        with suppress(ClusterError):
            LocalCluster.open(name, self.options.cluster_root).stop()

    def _reset(self, cluster: LocalCluster, trial: Trial) -> None:
        self._emit(events.PhaseStarted(trial=trial, phase="reset"))
        if trial.reset is ResetPolicy.RESTART:
            cluster.wipe()
        elif trial.reset is ResetPolicy.RECREATE:
            cluster.reset("drop")
        else:
            cluster.reset("truncate")

    def _create_schema(
        self, cluster: LocalCluster, trial: Trial, specs: list[WorkloadSpec]
    ) -> None:
        session = cluster.session()
        try:
            seen: set[str] = set()
            options = trial.table.to_cql()
            for spec in specs:
                statements = schema_statements(spec, trial.replication)
                for statement in statements:
                    if statement not in seen:
                        seen.add(statement)
                        session.execute(statement, timeout=60)
                if options:
                    for table in tables_of(statements):
                        session.execute(f"ALTER TABLE {table} WITH {options}", timeout=60)
        except Exception as error:  # the driver raises many types; name the statement
            raise ExperimentError(
                f"trial {trial.trial_id}: creating the schema failed: {error}"
            ) from error
        finally:
            cluster.close_sessions()

    def _finish_cluster(self) -> None:
        if self.cluster is None:
            return
        if self.options.keep_cluster:
            self.cluster.close_sessions()
        else:
            self.cluster.destroy()
        self.cluster = None

    # ------------------------------------------------------------------ files

    def _write_manifest(self, manifest: RunManifest | None = None) -> RunManifest:
        if manifest is None and self.layout.manifest.is_file():
            existing = RunManifest.model_validate_json(self.layout.manifest.read_text())
            if existing.plan_digest not in (None, self.plan.digest):
                raise ExperimentError(
                    f"cannot resume {self.layout.root}: the experiment file changed since "
                    "that run started (its plan differs); run without --resume to start a "
                    "new run"
                )
            manifest = existing.model_copy(update={"ended_at": None})
        if manifest is None:
            from casslab.cluster import distribution
            from casslab.cluster.jdk import probe

            jdk_version = None
            with suppress(CasslabError):
                jdk_version = probe().version
            manifest = RunManifest(
                experiment_name=self.experiment.name,
                run_id=self.layout.root.name,
                casslab_version=__version__,
                cassandra_version=self.experiment.cluster.version or distribution.DEFAULT_VERSION,
                jdk_version=jdk_version,
                git_revision=git_revision(),
                host=host_facts(),
                experiment=self.experiment.to_file_dict(),
                plan_digest=self.plan.digest,
                jvm_warmup_s=self.options.jvm_warmup_s,
                started_at=datetime.now(UTC),
                trials_planned=len(self.plan.trials),
            )
        _atomic_write(self.layout.manifest, manifest.model_dump_json(indent=2))
        return manifest

    def _write_outputs(self) -> None:
        if not self.options.write_report:
            return
        try:
            from casslab.report import write_report
        except ImportError:
            return
        try:
            write_report(self.layout.root)
        except CasslabError as error:
            self._emit(events.RunWarning(message=f"report not written: {error}"))


def _relative(moment: float | None, start: datetime) -> float | None:
    return None if moment is None else moment - start.timestamp()


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    temporary.replace(path)


def _engine_pid() -> int | None:
    """The engine child process of this process (started by ``engine.stream``)."""
    binary = engine.engine_binary().name
    for child in psutil.Process().children(recursive=True):
        with suppress(psutil.Error):
            if child.name() == binary:
                return child.pid
    return None


def latest_run(results_root: Path, experiment_name: str) -> Path | None:
    runs = sorted(p for p in (results_root / experiment_name).glob("*") if p.is_dir())
    return runs[-1] if runs else None


def run_layout(
    results_root: Path, experiment: Experiment, *, resume: bool | Path = False
) -> RunLayout:
    """The run directory: a new one, the latest of this experiment (``resume=True``), or
    the one given."""
    if isinstance(resume, Path):
        if not (resume / "manifest.json").is_file():
            raise ExperimentError(f"--resume {resume}: no manifest.json there; not a run directory")
        return RunLayout(root=resume)
    if resume:
        latest = latest_run(results_root, experiment.name)
        if latest is None:
            raise ExperimentError(
                f"--resume: no earlier run of {experiment.name!r} under {results_root}; "
                "run without --resume"
            )
        return RunLayout(root=latest)
    root = results_root / experiment.name / new_run_id(datetime.now(UTC))
    root.mkdir(parents=True, exist_ok=False)
    return RunLayout(root=root)
