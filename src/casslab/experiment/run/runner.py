"""The trial runner: for each trial, ensure the cluster, create the schema, preload, warm
up, measure (engine + metrics), collect, and write the trial at once.

I/O lives here; what to run comes from the plan (:mod:`casslab.experiment.design.plan_expansion`),
how each phase of a trial runs from :mod:`casslab.experiment.run.trial_phases`, what the run records
about itself from :mod:`casslab.experiment.run.manifest`, what a trial's numbers are from
:mod:`casslab.analysis`. A crash or Ctrl-C loses at most the trial in flight: every
finished trial has its ``summary.json``, and ``resume`` skips those.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from casslab.analysis.kpi_load import load_kpis
from casslab.cluster import BackendKind, Cluster, create
from casslab.engine_contract.engine_records import SummaryRecord
from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.errors import CasslabError, ClusterError, ExperimentError
from casslab.experiment.design.cluster_setup import ClusterAction, ClusterSetup
from casslab.experiment.design.iterations import IterationDecision, iteration_decision
from casslab.experiment.design.plan_expansion import add_round
from casslab.experiment.design.plan_records import Plan, Trial
from casslab.experiment.design.stored_plan import plan_for_run, save_plan, update_plan
from casslab.experiment.design.trial_order import pending
from casslab.experiment.file.experiment_model import Experiment, ResetPolicy
from casslab.experiment.file.hosts_checks import hosts_of
from casslab.experiment.run import (
    events,
    index_build,
    recording,
    trial_phases,
    vector_settle,
)
from casslab.experiment.run.engine_specs import check_engine_specs, spec_for
from casslab.experiment.run.failures import RunStop, blocked, setup_of
from casslab.experiment.run.finished_trials import read_finished
from casslab.experiment.run.host_facts import check_presets, cluster_warnings
from casslab.experiment.run.jvm_warmup import WarmupRule, rehearse
from casslab.experiment.run.load_clients import clients_of
from casslab.experiment.run.manifest import end_manifest, start_manifest
from casslab.experiment.run.runner_options import RunnerOptions, resume_command
from casslab.experiment.run.trial_cluster import ClusterFactory, TrialClusters
from casslab.experiment.steps.discover.discover_phase import Discoverer
from casslab.experiment.steps.faults import fault_phase
from casslab.experiment.steps.profile import profile_phase
from casslab.experiment.steps.skew import skew_phase
from casslab.experiment.steps.skew.skew_section import needs_injectable_clock
from casslab.experiment.steps.verify import verification
from casslab.load.session import LoadSession
from casslab.store.io import write_record
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialResult, TrialStatus


class Runner:
    """Runs the pending trials of a plan into one run directory."""

    def __init__(
        self,
        experiment: Experiment,
        layout: RunLayout,
        options: RunnerOptions,
        on_event: events.EventSink | None = None,
        *,
        create_cluster: ClusterFactory = create,
        metrics_sources: recording.SourceFactory | None = None,
        engine_source: recording.EngineSourceFactory | None = None,
        session: LoadSession | None = None,
    ) -> None:
        """``create_cluster`` makes the trial's cluster (default: the backend registry);
        ``metrics_sources`` the metrics samplers of a cluster's nodes, asked for as
        ``metrics_sources(cluster, None)`` once per cluster start and kept across its trials
        (default: host, process, cgroup, CQL and JMX samplers of every node);
        ``engine_source`` the sampler of each measured phase's engine process (default:
        its psutil sampler)."""
        self.experiment = experiment
        self.plan: Plan = plan_for_run(experiment, layout)  # plan.json's on --resume
        self.layout = layout
        self.options = options
        self._emit = on_event or (lambda _event: None)
        # the cluster's metrics samplers, opened at its first measured phase and kept
        self._recording = recording.LazyRecording(
            metrics_sources or recording.default_sources,
            interval_s=options.metrics_interval_s,
            engine_source=engine_source or recording.default_engine_source,
        )
        # the nodes run casslab's clock only when the run skews or steps clocks
        self._injectable_clock = needs_injectable_clock(
            (trial.clock for trial in self.plan.trials),
            probes=any(trial.lww is not None for trial in self.plan.trials),
            clock_jumps=any(f.of_kind.steps_clock for f in experiment.faults),
        )
        self._clusters = TrialClusters(
            experiment.name,
            experiment.cluster.use,
            hosts_of(experiment, options.base_dir),
            options,
            create_cluster,
            lambda event: self._emit(event),  # the runner's sink, also when replaced
            before_change=self._recording.close,
            injectable_clock=self._injectable_clock,
            jvm_options=(
                *experiment.cluster.jvm_options,
                *profile_phase.boot_options(experiment.profile),
            ),
        )
        self._failed_setups: set[ClusterSetup] = set()  # setups whose cluster did not start
        self._engine_version: str | None = None  # of the last trial that ran the engine
        # every engine of the run, in the --engine-cpus cgroup if asked; specs checked once
        self._session = session or LoadSession(options.engine_cpus)
        self._own_session = session is None
        self._results: dict[str, TrialResult] = {}  # by trial id: on disk, and kept here
        self._discoverer = Discoverer(layout, experiment.discover)  # rate shares, best threads
        self._clients = clients_of(experiment, options.base_dir)  # None: one local engine
        # by data key: the ingest rate and index build time of a load no trial reported yet
        self._loads: dict[str, dict[str, float | None]] = {}

    # ------------------------------------------------------------------ run

    def finished_trials(self) -> set[str]:
        """The ids of the plan's trials finished OK (their ``summary.json`` on disk)."""
        return {r.trial_id for r in self._results.values() if r.status is TrialStatus.OK}

    def run(self) -> RunLayout:
        """Run every trial not yet finished; write the tables and the report at the end.

        Stops with :class:`ExperimentError` when a trial's cluster cannot start and every
        trial left needs a cluster set up the same way (see
        :mod:`casslab.experiment.run.failures`); the finished trials and their report stay.
        """
        clients = self._clients.n if self._clients else 1
        verify = self.experiment.verify
        if self.experiment.cluster.use is None:  # an existing cluster runs its own settings
            check_presets(self.plan.trials)  # before the default preset's cells are measured
        check_engine_specs(  # first second; not again for what the caller checked
            self.plan, self.options.base_dir, clients, verify, session=self._session
        )
        manifest = start_manifest(
            self.layout,
            self.experiment,
            self.plan,
            self.options.jvm_warmup_s,
            engine_cpus=self.options.engine_cpus,
            injectable_clock=self._injectable_clock,
        )
        save_plan(self.layout, self.plan)  # a resumed run keeps the plan it has
        results, unreadable = read_finished(self.layout, self.plan)
        self._results.update(results)
        for warning in unreadable:
            self._emit(events.RunWarning(message=warning))
        todo = pending(self.plan, self.finished_trials())
        self._emit(events.RunStarted(total=len(self.plan.trials), pending=len(todo)))
        here = self.experiment.cluster.use is None and self.experiment.cluster.hosts is None
        for warning in cluster_warnings(todo, self.options.engine_cpus) if here else []:
            self._emit(events.RunWarning(message=warning))
        self._engine_version = manifest.engine_version
        stop: tuple[Trial, str, int] | None = None
        rule: IterationDecision | None = None
        try:
            self._session.place()  # the engine's cgroup, made before the first trial
            while True:
                stop = self._run_trials(todo)
                if stop is not None:
                    break
                rule = iteration_decision(self.plan, self._finished_results())
                if rule.done:
                    break
                self.plan = add_round(self.experiment, self.plan)
                update_plan(self.layout, self.plan)
                self._emit(
                    events.RoundAdded(
                        round_number=self.plan.iterations,
                        total=len(self.plan.trials),
                        reason=rule.sentence,
                    )
                )
                todo = pending(self.plan, self.finished_trials())
        finally:
            self._recording.close()  # the JMX helper and CQL connections go with the run
            self._clusters.finish()
            end_manifest(
                self.layout,
                manifest,
                self._engine_version,
                trials_planned=len(self.plan.trials),
                stop_rule=rule.sentence if rule is not None else None,
                discovered=self._discoverer.found,
            )
            self._close_session()
        if stop is not None:
            raise ExperimentError(self._stopped(*stop).message())
        self._write_outputs()
        self._emit(events.RunFinished(root=self.layout.root))
        return self.layout

    def _run_trials(self, todo: Sequence[Trial]) -> tuple[Trial, str, int] | None:
        """Run ``todo`` in order; the trial, reason and count left when the run must stop
        (its cluster cannot start and no trial left could run), else None."""
        for index, trial in enumerate(todo):
            self._emit(events.TrialStarted(trial=trial, index=index, count=len(todo)))
            result = self.run_trial(trial)
            if result.engine is not None:
                self._engine_version = result.engine.engine_version
            self._emit(events.TrialFinished(trial=trial, result=result))
            left = todo[index + 1 :]
            if setup_of(trial) in self._failed_setups and blocked(self._failed_setups, left):
                return trial, result.error or "unknown error", len(left)
        return None

    def _finished_results(self) -> list[TrialResult]:
        """The results of the plan's trials so far (OK or FAILED), kept in memory as each
        trial is written: the adaptive rule asks for them after every round."""
        return [self._results[t.trial_id] for t in self.plan.trials if t.trial_id in self._results]

    def _stopped(self, trial: Trial, reason: str, not_attempted: int) -> RunStop:
        """Write the report of the finished trials (none: no report) and say why the run
        stopped."""
        finished = len(self.finished_trials())
        report: Path | None = None
        if finished:
            self._write_outputs()
            if self.layout.report_html.is_file():
                report = self.layout.report_html
        return RunStop(
            trial_id=trial.trial_id,
            setup=setup_of(trial),
            reason=reason,
            not_attempted=not_attempted,
            finished=finished,
            planned=len(self.plan.trials),
            report=report,
            resume=resume_command(self.options, self.layout.root),
        )

    def close(self) -> None:
        """End what :meth:`run_trial` calls started when they are made without
        :meth:`run` (the tuner): the metrics samplers, the cluster (destroyed unless
        ``--keep-cluster``) and the engine's cgroup."""
        try:
            self._recording.close()
            self._clusters.finish()
        finally:
            self._close_session()

    def _close_session(self) -> None:
        """Remove the engine's cgroup, when the session is the runner's own."""
        if self._own_session:
            self._session.close()

    # ------------------------------------------------------------------ one trial

    def run_trial(self, trial: Trial) -> TrialResult:
        """Run one trial of the plan (cluster, schema, preload, warm-up, measure, KPIs) and
        write its ``summary.json`` at once; a failure is a FAILED result, not an error.
        What the run loop, the tuner and tests call."""
        started = datetime.now(UTC)
        trial_dir = self.layout.trial_dir(trial.cell_id, trial.iteration)
        if trial_dir.exists():
            shutil.rmtree(trial_dir)  # a half-written trial from an interrupted run
        trial_dir.mkdir(parents=True)
        cell = self.plan.cell(trial.cell_id)
        clock = trial_phases.TrialClock()
        summary: SummaryRecord | None = None
        metrics_path = self.layout.metrics_parquet(trial.cell_id, trial.iteration)
        identity: dict[str, Any] = {
            "trial_id": trial.trial_id,
            "cell_id": trial.cell_id,
            "iteration": trial.iteration,
            "order_index": trial.position,
            "factors": dict(cell.labels),
        }
        setup = setup_of(trial)
        times = trial_phases.PhaseTimes(trial, self._emit)
        fault_kpis: dict[str, float | None] = {}  # filled when the measured phase ends
        try:
            self._failed_setups.add(setup)  # until its cluster is up
            with times.phase("cluster", announce=False):
                cluster, action = self._ensure_cluster(trial)
                skew_phase.set_clocks(cluster, trial)  # cluster.clock: no restart
            identity["cassandra_version"] = cluster.state.cassandra_version
            identity["java_feature"] = cluster.state.java_feature
            # an attached cluster's JDK and collector are unknown
            started_here = cluster.state.spec.backend is not BackendKind.EXTERNAL
            identity["jdk"] = cluster.state.jdk if started_here else None
            identity["gc"] = (cluster.state.spec.gc or "G1") if started_here else None
            self._failed_setups.discard(setup)
            connection = trial_phases.connection_for(cluster, trial)
            data_seed = self.experiment.data_seed
            base_dir = self.options.base_dir
            measure = spec_for(
                trial.workload, connection, trial.iteration, base_dir, data_seed=data_seed
            )
            verify = self.experiment.verify  # the measured phase reads back its writes
            preload = (
                spec_for(trial.preload, connection, 0, base_dir, data_seed=data_seed)
                if trial.preload is not None
                else None
            )
            specs = [s for s in (preload, measure) if s]
            warm = (
                action is not ClusterAction.KEEP
                and self.options.jvm_warmup_s > 0
                and trial.reset is not ResetPolicy.RESTART  # that policy asks for cold nodes
            )
            timeout_s = self.options.trial_timeout_s
            if warm:
                self._warm_up(cluster, trial, preload, measure, specs, times)
            fresh = self._discover(cluster, trial, connection, preload, specs, times)
            if trial.discover is not None:  # its rate share or best threads, resolved
                command = self._discoverer.command(trial)
                measure = spec_for(
                    command, connection, trial.iteration, base_dir, data_seed=data_seed
                )
            measure = verification.measured_spec(measure, verify, trial.workload.text)
            used = warm or fresh or action in (ClusterAction.KEEP, ClusterAction.RESTART)
            self._prepare(cluster, trial, preload, specs, times, reset=used)
            key = trial_phases.data_key(trial, specs, data_seed)
            loaded = self._loads.pop(key, None) or load_kpis(None, None)
            expired = skew_phase.expired_before(cluster, trial)
            timeline = fault_phase.timeline(cluster, self.experiment.faults)
            profiler = profile_phase.profiler_for(
                cluster,
                self.experiment.profile,
                self.layout.profile_dir(trial.cell_id, trial.iteration),
            )
            with (
                times.phase("measure", announce=False),  # measure announces itself
                fault_phase.recorded(
                    timeline,
                    self.layout.faults_json(trial.cell_id, trial.iteration),
                    clock,
                    fault_kpis,
                ),
                profile_phase.recorded(profiler),
            ):
                summary = trial_phases.measure(
                    cluster,
                    trial,
                    measure,
                    trial_dir,
                    hdr_log=self.layout.latency_hlog(trial.cell_id, trial.iteration),
                    metrics_path=metrics_path,
                    clock=clock,
                    recording=self._recording,
                    timeout_s=timeout_s,
                    emit=self._emit,
                    session=self._session,
                    clients=self._clients,
                    faults=timeline,
                    profiler=profiler,
                    end_after_s=self.experiment.after_operations_s,
                )
            measured = trial_phases.measured_kpis(
                trial,
                cell.labels,
                summary,
                clock,
                metrics_path,
                self.layout.latency_hlog(trial.cell_id, trial.iteration),
            )
            probed = skew_phase.probe_kpis(cluster, trial, expired, times)
            steady = measured.steady
            result = TrialResult(
                **identity,
                status=TrialStatus.OK,
                started_at=started,
                ended_at=datetime.now(UTC),
                measure_start_s=clock.since(started.timestamp())[0],
                measure_end_s=clock.since(started.timestamp())[1],
                engine=summary,
                kpis=dict(measured.kpis)
                | probed
                | fault_kpis
                | verification.verify_kpis(summary, verify)
                | loaded,
                steady_start_s=steady.start_s if steady else None,
                steady=steady.steady if steady else None,
                steady_reason=steady.reason if steady else None,
                phase_s=times.seconds,
            )
        except CasslabError as error:
            result = TrialResult(
                **identity,
                status=TrialStatus.FAILED,
                error=str(error),
                started_at=started,
                ended_at=datetime.now(UTC),
                engine=summary,
                phase_s=times.seconds,
            )
            if isinstance(error, ClusterError):
                self._clusters.forget_setup()  # rebuild the cluster for the next trial
        if self.experiment.reshapes_cluster:
            self._clusters.forget_setup()  # another version or other nodes: a new one next
        write_record(self.layout.trial_summary(trial.cell_id, trial.iteration), result)
        self._results[trial.trial_id] = result
        return result

    def _warm_up(
        self,
        cluster: Cluster,
        trial: Trial,
        preload: WorkloadSpec | None,
        measure: WorkloadSpec,
        specs: list[WorkloadSpec],
        times: trial_phases.PhaseTimes,
    ) -> None:
        """Rehearse the trial on nodes that just started until their JIT is done (see
        :mod:`casslab.experiment.run.jvm_warmup`): its data, its reset and the data restored (their
        first run sets the JIT off again, measured there), then its measured workload;
        the caller resets after."""
        self._prepare(cluster, trial, preload, specs, times, reset=False)
        self._prepare(cluster, trial, preload, specs, times, reset=True, owned=True)
        limit = self.options.jvm_warmup_s
        rule = WarmupRule(min_s=min(WarmupRule.min_s, limit), max_s=limit)
        trial_dir = self.layout.trial_dir(trial.cell_id, trial.iteration)
        with times.phase("jvm warm-up"):
            outcome = rehearse(
                cluster,
                measure,
                trial_dir / "jvm-warmup",
                rule=rule,
                timeout_s=self.options.trial_timeout_s,
                session=self._session,
            )
        (trial_dir / "jvm-warmup" / "warmup.json").write_text(
            json.dumps(dataclasses.asdict(outcome), indent=1) + "\n"
        )
        if not outcome.quiet and outcome.compiler_pct:
            self._emit(
                events.RunWarning(
                    message=f"trial {trial.trial_id}: the nodes' JIT compilers were still "
                    f"busy after the {limit:g} s JVM warm-up (last 5 s: "
                    f"{max(outcome.compiler_pct[-5:]):.0f}% of a core); the trial may run "
                    "slower than the next ones of its cell; raise --jvm-warmup"
                )
            )

    def _discover(
        self,
        cluster: Cluster,
        trial: Trial,
        connection: Connection,
        preload: WorkloadSpec | None,
        specs: list[WorkloadSpec],
        times: trial_phases.PhaseTimes,
    ) -> bool:
        """Run the discover step of the trial's group unless it ran: on the trial's data
        (reset and loaded as for the trial), which the trial resets after (True)."""
        if not self._discoverer.pending(trial):
            return False
        self._prepare(cluster, trial, preload, specs, times, reset=True)
        with times.phase("discover"):
            self._discoverer.run(
                trial,
                connection,
                self.options.base_dir,
                self.experiment.data_seed,
                self._session,
            )
        return True

    def _prepare(
        self,
        cluster: Cluster,
        trial: Trial,
        preload: WorkloadSpec | None,
        specs: list[WorkloadSpec],
        times: trial_phases.PhaseTimes,
        *,
        reset: bool,
        owned: bool | None = None,
    ) -> None:
        """The one trial-preparation sequence the JVM warm-up, the discover step and the
        trial start from: the data reset when ``reset`` (on a cluster casslab does not own,
        ``owned`` False by default, only the trial's keyspace is truncated), the trial's
        schema, then its data (preloaded, or restored from a capture)."""
        if reset:
            with times.phase("reset"):
                owns = self._clusters.use is None if owned is None else owned
                trial_phases.reset_data(cluster, trial, owned=owns)
        with times.phase("schema", announce=False):
            trial_phases.create_schema(cluster, trial, specs)
        if preload is not None:
            self._load_data(cluster, trial, preload, specs, times)

    def _load_data(
        self,
        cluster: Cluster,
        trial: Trial,
        preload: WorkloadSpec,
        specs: list[WorkloadSpec],
        times: trial_phases.PhaseTimes,
    ) -> None:
        """Give the trial its preloaded data: restored from the capture of an earlier trial
        with the same data (:func:`~casslab.experiment.run.trial_phases.data_key`) on this cluster,
        else preloaded and captured for the next ones; either way with the keyspace's
        indexes built (:mod:`~casslab.experiment.run.index_build`). Before the capture, the
        tables with a vector index are flushed and compacted
        (:mod:`~casslab.experiment.run.vector_settle`): recall@10 0.72 on the trial that
        loaded the vectors, 0.998 on those that restored them, before that. A preload's
        ingest rate and index build time wait in ``_loads`` for the trial that starts from
        its data."""
        key = trial_phases.data_key(trial, specs, self.experiment.data_seed)
        timeout_s = self.options.trial_timeout_s or index_build.TIMEOUT_S

        def wait() -> None:  # announced only when an index is being built
            self._emit(events.PhaseStarted(trial=trial, phase="index build"))

        if self._clusters.captured(key):
            with times.phase("restore"):
                cluster.restore(key, trial.keyspace)
            with times.phase("index build", announce=False):  # the restored SSTables'
                index_build.wait_built(cluster, trial.keyspace, timeout_s=timeout_s, on_wait=wait)
            return
        trial_dir = self.layout.trial_dir(trial.cell_id, trial.iteration)
        with times.phase("preload"):
            summary = trial_phases.preload(
                preload,
                trial_dir,
                timeout_s=self.options.trial_timeout_s,
                session=self._session,
                clients=self._clients,
            )
        loaded = time.monotonic()
        with times.phase("index build", announce=False):
            built_s = index_build.wait_built(
                cluster, trial.keyspace, timeout_s=timeout_s, since=loaded, on_wait=wait
            )
        if tables := vector_settle.tables_to_settle(cluster, trial.keyspace):
            with times.phase("vector compaction"):  # to the state a restored copy is in
                vector_settle.settle(cluster, trial.keyspace, tables, timeout_s=timeout_s)
                index_build.wait_built(cluster, trial.keyspace, timeout_s=timeout_s)
        self._loads[key] = load_kpis(summary, built_s)  # for the trial that starts from it
        if not self._clusters.captures_data:
            return
        with times.phase("capture"):
            cluster.capture(key, trial.keyspace)
        self._clusters.add_capture(key)

    # ------------------------------------------------------------------ cluster

    @property
    def cluster(self) -> Cluster | None:
        """The cluster the last trial ran on (None before the first and after the run)."""
        return self._clusters.cluster

    def _ensure_cluster(self, trial: Trial) -> tuple[Cluster, ClusterAction]:
        """The trial's cluster and what was done to get it (:class:`TrialClusters`)."""
        return self._clusters.ensure(trial)

    # ------------------------------------------------------------------ report

    def _write_outputs(self) -> None:
        if not self.options.write_report:
            return
        from casslab.report import write_report

        try:
            write_report(self.layout.root)
        except CasslabError as error:
            self._emit(events.RunWarning(message=f"report not written: {error}"))
