"""``casslab run FILE`` and ``casslab plan FILE``: render the runner's events."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from casslab.cli.exit_status import OUTCOME_FAILED
from casslab.cli.interrupt import Interrupted
from casslab.cli.progress_bar import progress_bar

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.progress import Progress

    from casslab.analysis.claim_records import Claim
    from casslab.experiment.file.experiment_model import Experiment
    from casslab.experiment.run.events import Event, EventSink
    from casslab.experiment.run.runner_options import RunnerOptions
    from casslab.load.session import LoadSession
    from casslab.metrics.prom_store import LatestValues
    from casslab.store.layout import RunLayout

# The experiment package is imported by each command when it runs: other commands need
# none of it at start-up.

console = Console()


class RunProgressView:
    """Turns runner events into a progress bar with ETA and the live op rate / p99."""

    def __init__(self, progress: Progress, total: int) -> None:
        self.progress = progress
        self.task = progress.add_task("trials", total=total, status="")
        self.failed = 0

    def __call__(self, event: Event) -> None:
        from casslab.experiment.run import events
        from casslab.store.run_records import TrialStatus

        if isinstance(event, events.RunStarted):
            done = event.total - event.pending
            self.progress.update(self.task, total=event.total, completed=done)
        elif isinstance(event, events.TrialStarted):
            self._status(f"{event.trial.trial_id}: starting")
        elif isinstance(event, events.ClusterChanged):
            self._status(f"{event.trial.trial_id}: cluster {event.action}")
        elif isinstance(event, events.PhaseStarted):
            self._status(f"{event.trial.trial_id}: {event.phase}")
        elif isinstance(event, events.IntervalMeasured):
            total = event.record.total
            self._status(
                f"{event.trial.trial_id}: {total.op_rate:,.0f} op/s, "
                f"p99 {total.response.p99_ms:.1f} ms, errors {total.errors}"
            )
        elif isinstance(event, events.TrialFinished):
            result = event.result
            if result.status is TrialStatus.FAILED:
                self.failed += 1
                self.progress.console.print(
                    f"[red]trial {escape(result.trial_id)} failed:[/] {escape(result.error or '')}",
                    highlight=False,
                )
            else:
                rate = result.kpis.get("op_rate")
                p99 = result.kpis.get("latency_p99_ms")
                self.progress.console.print(
                    f"trial {result.trial_id}: {rate:,.0f} op/s, p99 {p99:.1f} ms"
                    if rate is not None and p99 is not None
                    else f"trial {result.trial_id}: done"
                )
            self.progress.advance(self.task)
        elif isinstance(event, events.RoundAdded):
            self.progress.update(self.task, total=event.total)
            self.progress.console.print(
                f"round {event.round_number} added: {escape(event.reason)}", highlight=False
            )
        elif isinstance(event, events.RunWarning):
            self.progress.console.print(
                f"[yellow]warning:[/] {escape(event.message)}", highlight=False, soft_wrap=True
            )

    def _status(self, text: str) -> None:
        self.progress.update(self.task, status=text)


def run_progress() -> Progress:
    """The run's bar: trials done of all, time, ETA and what the trial in flight does; on a
    terminal only (piped output keeps the per-trial lines alone)."""
    return progress_bar(
        console,
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
    )


def run(
    file: Annotated[Path, typer.Argument(help="Experiment file (YAML).")],
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the latest run of this experiment.")
    ] = False,
    resume_dir: Annotated[
        Path | None, typer.Option("--resume-dir", help="Continue this run directory.")
    ] = None,
    results: Annotated[Path, typer.Option("--results", help="Results root.")] = Path("results"),
    keep_cluster: Annotated[
        bool, typer.Option("--keep-cluster", help="Leave the nodes running afterwards.")
    ] = False,
    base_address: Annotated[
        str,
        typer.Option(
            "--base-address",
            help="Address of node 1 of the run's cluster (plain nodes; netns nodes get "
            "addresses on their bridge's subnet).",
        ),
    ] = "127.0.0.1",
    jmx_port_base: Annotated[int, typer.Option("--jmx-port-base")] = 7190,
    jvm_warmup: Annotated[
        float,
        typer.Option(
            "--jvm-warmup",
            help="At most this many seconds of discarded load (the trial rehearsed: its "
            "preload, then its workload) after the nodes (re)start; it ends earlier, after "
            "at least 30 s, once the nodes' JIT compilers are quiet (under 3% of a core "
            "over 20 s). 0 turns it off.",
        ),
    ] = 180.0,
    engine_cpus: Annotated[
        str | None,
        typer.Option(
            "--engine-cpus",
            help="Run every load engine of a trial (preload, JVM warm-up, measure) in a "
            "cgroup of its own pinned to these CPUs (e.g. 1 or 0-1), so that the load "
            "takes no CPU from the nodes on theirs; needs root.",
        ),
    ] = None,
    serve_metrics: Annotated[
        bool,
        typer.Option(
            "--serve-metrics",
            help="Serve the cluster's metrics and the load engine's interval statistics "
            "in the Prometheus format while the run goes (see docs/metrics.md).",
        ),
    ] = False,
    metrics_port: Annotated[
        int, typer.Option("--metrics-port", help="Port of --serve-metrics (0: any free one).")
    ] = 9464,
    metrics_address: Annotated[
        str,
        typer.Option(
            "--metrics-address",
            help="Address of --serve-metrics; one other than loopback needs "
            "--metrics-allow-remote.",
        ),
    ] = "127.0.0.1",
    metrics_allow_remote: Annotated[
        bool,
        typer.Option(
            "--metrics-allow-remote",
            help="Allow a --metrics-address other machines can reach (they see the metrics).",
        ),
    ] = False,
) -> None:
    """Run an experiment: every trial, then statistics and the report."""
    from casslab.experiment.design.plan_expansion import expand
    from casslab.experiment.file.experiment_loader import load
    from casslab.experiment.run.engine_specs import check_engine_specs
    from casslab.experiment.run.host_facts import check_presets
    from casslab.experiment.run.load_clients import clients_of
    from casslab.experiment.run.runner_options import RunnerOptions, check_options
    from casslab.load.session import LoadSession
    from casslab.store.runs import open_run

    experiment = load(file)
    options = RunnerOptions(
        results_root=results,
        keep_cluster=keep_cluster,
        base_address=base_address,
        jmx_port_base=jmx_port_base,
        base_dir=file.resolve().parent,
        jvm_warmup_s=jvm_warmup,
        experiment_file=file,
        engine_cpus=engine_cpus,
    )
    check_options(options)
    clients = clients_of(experiment, options.base_dir)
    shares = clients.n if clients else 1
    verify = experiment.verify
    with contextlib.ExitStack() as stack:
        session = stack.enter_context(LoadSession(engine_cpus))  # every engine of the run
        # no run dir yet; the runner's own check asks the engine nothing asked here
        expanded = expand(experiment)
        if experiment.cluster.use is None:  # an existing cluster runs its own settings
            check_presets(expanded.trials)
        check_engine_specs(expanded, options.base_dir, shares, verify, session=session)
        store = None
        if serve_metrics:
            store = _serve(
                stack,
                experiment.cluster.use or experiment.name,
                port=metrics_port,
                address=metrics_address,
                allow_remote=metrics_allow_remote,
            )
        layout = open_run(results, experiment.name, resume=resume_dir or resume)
        failed = _run(experiment, layout, options, store, session)
    if failed:
        raise typer.Exit(OUTCOME_FAILED)


def _serve(
    stack: contextlib.ExitStack, cluster: str, *, port: int, address: str, allow_remote: bool
) -> LatestValues:
    """Start serving the run's metrics (closed with ``stack``); the store they come from."""
    from casslab.metrics.prom_server import RUN_FLAGS, MetricsServer
    from casslab.metrics.prom_store import ClusterLabels, LatestValues

    store = LatestValues(ClusterLabels(cluster=cluster))
    server = MetricsServer(
        store, port=port, address=address, allow_remote=allow_remote, flags=RUN_FLAGS
    )
    stack.enter_context(server)
    console.print(f"serving metrics at {server.url}", highlight=False)
    return store


def _serving(view: EventSink, store: LatestValues) -> EventSink:
    """``view``, and the engine's intervals handed to the served ``store`` too."""
    from casslab.experiment.run import events

    def sink(event: Event) -> None:
        view(event)
        if isinstance(event, events.IntervalMeasured):
            trial = event.trial
            store.record_interval(trial.trial_id, trial.cell_id, event.record, time.time())

    return sink


def _run(
    experiment: Experiment,
    layout: RunLayout,
    options: RunnerOptions,
    store: LatestValues | None,
    session: LoadSession,
) -> int:
    """Run every trial with a progress view; the number of failed trials."""
    from casslab.experiment.run.runner import Runner
    from casslab.experiment.run.runner_options import resume_command
    from casslab.metrics.prom_cluster import ServedSources, served_engine_source

    start = time.monotonic()
    with run_progress() as progress:
        view = RunProgressView(progress, total=0)
        runner = Runner(
            experiment,
            layout,
            options,
            on_event=view if store is None else _serving(view, store),
            metrics_sources=None if store is None else ServedSources(store),
            engine_source=None if store is None else served_engine_source(store),
            session=session,
        )
        try:
            runner.run()
        except KeyboardInterrupt as interrupt:
            again = resume_command(options, layout.root)
            raise Interrupted(f"finished trials are kept; resume with: {again}") from interrupt
    console.print(
        f"run {layout.root} finished in {time.monotonic() - start:.0f} s"
        + (f", {view.failed} trial(s) failed" if view.failed else "")
    )
    if layout.report_html.exists():
        console.print(f"report: {layout.report_html.resolve()}")
    return view.failed


def plan(file: Annotated[Path, typer.Argument(help="Experiment file (YAML).")]) -> None:
    """Check an experiment file and show its cells and trial order without running it."""
    from casslab.experiment.design.plan_expansion import expand
    from casslab.experiment.design.trial_order import clusters_and_restarts
    from casslab.experiment.file.experiment_loader import load
    from casslab.experiment.run.engine_specs import check_engine_specs
    from casslab.experiment.run.host_facts import cluster_warnings, preset_problems
    from casslab.experiment.run.load_clients import clients_of
    from casslab.load.credentials import mask_text

    experiment = load(file)
    use = experiment.cluster.use  # an existing cluster, used as it is
    elsewhere = use or experiment.cluster.hosts  # nodes that are not this machine's
    expanded = expand(experiment)
    clients = clients_of(experiment, file.resolve().parent)
    checked = check_engine_specs(
        expanded, file.resolve().parent, clients.n if clients else 1, experiment.verify
    )
    isolated = any(t.setup.isolation_values() for t in expanded.trials)
    columns = ["#", "trial", "nodes", *(["isolation"] if isolated else []), "restart"]
    table = Table(*columns, "workload", title=f"plan of {expanded.experiment}")
    for trial in expanded.trials:
        values = trial.setup.isolation_values()
        isolation = [" ".join(f"{k}={v}" for k, v in values.items()) or "process"]
        table.add_row(
            str(trial.position + 1),
            trial.trial_id,
            elsewhere or str(trial.nodes),
            *(isolation if isolated else []),
            trial.restart_reason.value if trial.restart_reason else "",
            mask_text(trial.workload.text)
            + (f" ({trial.discover.describe()})" if trial.discover else ""),
        )
    console.print(table)
    groups = {t.discover.group for t in expanded.trials if t.discover}
    if groups:
        console.print(
            f"discover: {len(groups)} step(s), one before the first trial of each group of "
            "cells that differ only in rate or threads"
        )
    rounds = f"{expanded.iterations} iterations"
    if expanded.adaptive is not None:
        until = expanded.adaptive.until
        rounds = (
            f"{expanded.iterations} iterations (then more, up to {expanded.adaptive.max}, "
            f"until every cell's {until.confidence:.0%} CI half-width on "
            f"{', '.join(until.kpis)} is at most {until.ci_half_width_pct:g}%)"
        )
    reshapes = experiment.reshapes_cluster
    created, restarts = clusters_and_restarts(expanded.trials, reshapes)
    clusters = (
        f"on cluster {use!r} as it is (none created or restarted, reset {experiment.reset})"
        if use
        else f"{created} cluster(s) created, {restarts} restart(s)"
        + (" (an operation reshapes the cluster: a new one for each trial)" if reshapes else "")
    )
    console.print(
        f"{len(expanded.cells)} cells x {rounds} = "
        f"{len(expanded.trials)} trials; baseline {expanded.baseline_cell_id}; "
        f"{clusters}; {checked} workload spec(s) accepted by the load engine"
    )
    if clients is not None:
        console.print(f"preload and measured phases run from {clients.where}", highlight=False)
    if experiment.after_operations_s is not None:
        console.print(
            f"each measured phase ends {experiment.after_operations_s:g} s after its "
            "operations and faults are over (its duration=/n= at most)",
            highlight=False,
        )
    if experiment.verify is not None:
        console.print(
            "each measured phase then reads back every write the cluster acknowledged, at "
            f"{experiment.verify.value} (KPIs lost_writes, unverified_writes)",
            highlight=False,
        )
    _print_claims(experiment.claims)
    for warning in [] if elsewhere else cluster_warnings(expanded.trials):  # oversubscribed
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    for problem in [] if use else preset_problems(expanded.trials):  # `run` refuses these
        console.print(f"[yellow]warning:[/] {escape(problem)}", highlight=False, soft_wrap=True)


def _print_claims(claims: Sequence[Claim]) -> None:
    """The file's claims: what each tests, or why it cannot be tested."""
    from casslab.analysis.claim_records import ClaimDirection

    if not claims:
        return
    testable = sum(c.not_testable is None for c in claims)
    table = Table(
        "#",
        "claim",
        "source",
        "test",
        title=f"claims: {testable} tested, {len(claims) - testable} not",
    )
    for index, claim in enumerate(claims, start=1):
        if claim.compare is None:
            test = f"not testable: {claim.not_testable}"
        else:
            a = " ".join(f"{k}={v}" for k, v in claim.compare.a.items())
            b = " ".join(f"{k}={v}" for k, v in claim.compare.b.items())
            size = f" ({claim.size})" if claim.size else ""
            test = f"{claim.kpi}: {a} {claim.direction} than {b}{size}"
            if claim.direction is ClaimDirection.EQUAL:
                test = f"{claim.kpi}: {a} equal to {b}{size}"
        table.add_row(str(index), escape(claim.says), escape(claim.source), escape(test))
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("plan")(plan)
