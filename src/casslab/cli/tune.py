"""``casslab tune FILE``: render the tuner's and the runner's events."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from casslab.cli.interrupt import Interrupted
from casslab.cli.progress_bar import progress_bar

if TYPE_CHECKING:
    from casslab.tune.evaluator import TuneEvent

console = Console()


class _View:
    """A line per configuration measured; the trial's phase and live figures as status."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task = progress.add_task("tune", total=None, status="")

    def tune_event(self, event: TuneEvent) -> None:
        from casslab.tune.evaluator import Asked, Note, Told
        from casslab.tune.space import describe

        print_ = self.progress.console.print
        if isinstance(event, Note):
            print_(escape(event.message), highlight=False)
        elif isinstance(event, Asked):
            of = f"/{event.count}" if event.count else ""
            print_(
                f"{event.role.value} {event.index}{of} {event.label}: "
                f"{escape(describe(event.params))}",
                highlight=False,
                soft_wrap=True,
            )
            self.progress.update(self.task, description=event.label)
        elif isinstance(event, Told):
            m = event.trial.measurement
            if not m.finished:
                print_(f"  [red]{m.label} failed:[/] {escape(m.reason or '')}", highlight=False)
                return
            state = (
                "ok" if event.trial.feasible else "infeasible: " + "; ".join(event.trial.violations)
            )
            print_(
                f"  {m.label}: {m.op_rate or 0:,.0f} op/s, p99 {m.p99_ms or 0:.1f} ms, "
                f"errors {m.errors or 0:g} ({escape(state)}) in {m.duration_s:.0f} s",
                highlight=False,
            )

    def runner_event(self, event: Any) -> None:
        from casslab.experiment.run import events

        if isinstance(event, events.ClusterChanged):
            self._status(f"cluster {event.action}")
        elif isinstance(event, events.PhaseStarted):
            self._status(event.phase)
        elif isinstance(event, events.IntervalMeasured):
            total = event.record.total
            self._status(
                f"{total.op_rate:,.0f} op/s, p99 {total.response.p99_ms:.1f} ms, "
                f"errors {total.errors}"
            )
        elif isinstance(event, events.RunWarning):
            self.progress.console.print(
                f"[yellow]warning:[/] {escape(event.message)}", highlight=False, soft_wrap=True
            )

    def _status(self, text: str) -> None:
        self.progress.update(self.task, status=text)


def _resume_hint(file: Path, run_dir: Path, options: list[str]) -> str:
    """The command that continues the run with the same options."""
    import shlex

    return shlex.join(["casslab", "tune", str(file), "--resume", str(run_dir), *options])


def _options_again(
    budget: int | None,
    compare_sweep: bool,
    base_address: str,
    jmx_port_base: int,
    jvm_warmup: float | None,
    keep_cluster: bool,
) -> list[str]:
    argv = ["--budget", str(budget)] if budget is not None else []
    argv += ["--compare-sweep"] if compare_sweep else []
    if (base_address, jmx_port_base) != ("127.0.0.1", 7190):
        argv += ["--base-address", base_address, "--jmx-port-base", str(jmx_port_base)]
    argv += ["--jvm-warmup", f"{jvm_warmup:g}"] if jvm_warmup is not None else []
    return argv + (["--keep-cluster"] if keep_cluster else [])


def tune(
    file: Annotated[Path, typer.Argument(help="Tune file (YAML): an experiment + tune:.")],
    budget: Annotated[
        int | None,
        typer.Option("--budget", min=1, help="Search trials (overrides tune.budget.trials)."),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", help="Continue the tuning run in this directory."),
    ] = None,
    runs_dir: Annotated[
        Path, typer.Option("--runs-dir", help="Where run directories are made.")
    ] = Path("results"),
    compare_sweep: Annotated[
        bool,
        typer.Option(
            "--compare-sweep",
            help="Also run a one-at-a-time sweep with the same trial budget "
            "(as tune.compare: one-at-a-time).",
        ),
    ] = False,
    base_address: Annotated[str, typer.Option("--base-address")] = "127.0.0.1",
    jmx_port_base: Annotated[int, typer.Option("--jmx-port-base")] = 7190,
    jvm_warmup: Annotated[
        float | None,
        typer.Option(
            "--jvm-warmup",
            help="Seconds of JIT rehearsal after each node (re)start (default: the file's "
            "tune.jvm_warmup).",
        ),
    ] = None,
    keep_cluster: Annotated[bool, typer.Option("--keep-cluster")] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Check the file and print the search (space, budget, default) without "
            "starting anything.",
        ),
    ] = False,
) -> None:
    """Search cassandra.yaml and table options jointly toward the file's objective, confirm
    the best against the default, and recommend (or say there is no significant gain)."""
    from casslab.experiment.design.plan_expansion import expand
    from casslab.experiment.run.engine_specs import check_engine_specs
    from casslab.experiment.run.runner_options import RunnerOptions, check_options
    from casslab.tune.loader import load
    from casslab.tune.run_dir import open_tune_run
    from casslab.tune.runner_evaluator import RunnerEvaluator, candidate_experiment
    from casslab.tune.space import default_params

    tune_file = load(file)
    options = RunnerOptions(
        results_root=runs_dir,
        keep_cluster=keep_cluster,
        base_address=base_address,
        jmx_port_base=jmx_port_base,
        base_dir=file.resolve().parent,
        jvm_warmup_s=jvm_warmup if jvm_warmup is not None else tune_file.tune.jvm_warmup_s,
        experiment_file=file,
    )
    check_options(options)
    default = candidate_experiment(tune_file, default_params(tune_file.tune.space))
    check_engine_specs(expand(default), options.base_dir, 1, default.verify)  # no run dir yet
    if dry_run:
        from casslab.tune.dry_plan import plan_lines

        for line in plan_lines(tune_file, str(file)):
            console.print(escape(line), highlight=False, soft_wrap=True)
        return
    layout = open_tune_run(runs_dir, tune_file, resume)
    # the search and its report only now: optuna and the report's plotting and statistics
    # take seconds to import, which a file, an option or a run directory refused above
    # need not wait for
    from casslab.tune.output import write_outputs
    from casslab.tune.report import write_report
    from casslab.tune.tuner import Tuner

    console.print(f"tuning run {layout.root}: {tune_file.tune.objective.describe()}")
    start = time.monotonic()
    with progress_bar(
        console,
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        TimeElapsedColumn(),
        TextColumn("{task.fields[status]}"),
    ) as progress:
        view = _View(progress)
        evaluator = RunnerEvaluator(tune_file, layout, options, on_event=view.runner_event)
        tuner = Tuner(
            tune_file.experiment.name,
            tune_file.tune,
            layout.root,
            evaluator,
            view.tune_event,
            trials=budget,
            compare=True if compare_sweep else None,
        )
        try:
            try:
                result = tuner.run()
            finally:
                evaluator.close()
        except KeyboardInterrupt as interrupt:
            again = _options_again(
                budget, compare_sweep, base_address, jmx_port_base, jvm_warmup, keep_cluster
            )
            hint = _resume_hint(file, layout.root, again)
            raise Interrupted(
                f"the trial in flight is lost, the study is kept; resume with: {hint}"
            ) from interrupt
    write_outputs(result, layout.root, tune_file.experiment.schema_.keyspace)
    report = write_report(result, layout.root)
    console.print(
        f"{escape(result.recommendation.verdict.value)}: {escape(result.recommendation.sentence)}",
        highlight=False,
        soft_wrap=True,
    )
    console.print(f"tuning run {layout.root} finished in {time.monotonic() - start:.0f} s")
    console.print(f"report: {report.resolve()}")


def register(app: typer.Typer) -> None:
    app.command("tune")(tune)
