"""``casslab capacity find``: the highest open-loop rate under a p99 SLO (or, with
``--closed-loop``, cassandra-stress's thread-ramp maximum) of a stress or YCSB workload.

Parse and check everything first (the SLO, the workload, the engine, a node that answers),
then call :func:`casslab.capacity.find.find_capacity` with an engine-backed measure
(:mod:`casslab.capacity.probe`), print each run as it ends, save the result after every run
(``find.json`` in ``--out``: an interrupted or failed search keeps what it measured), and
end with the curve, the answer and the figure (``find.png``). ``--json`` prints only the
result on standard output (progress goes to standard error).
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from casslab.capacity.find import FindResult, Point, find_capacity
from casslab.capacity.find_settings import (
    FindSettings,
    parse_error_share,
    parse_percent,
    parse_rate_per_s,
    parse_recall,
    parse_slo_ms,
    settings,
)
from casslab.capacity.probe import EngineMeasure, check_reachable, run_preload
from casslab.capacity.probe_spec import parse_command, preload_spec, require_recall, split_words
from casslab.capacity.ramp import RampResult, run_ramp
from casslab.cli.capacity_find_view import (
    View,
    answer_lines,
    curve_table,
    elapsed,
    ms,
    point_line,
)
from casslab.cli.exit_status import OUTCOME_FAILED
from casslab.cli.interrupt import Interrupted
from casslab.cli.load_options import (
    DataSeed,
    EngineCpus,
    Seed,
    check_classes,
    default_contact_points,
    refuse_casslab_typos,
    with_current_access,
)
from casslab.cli.metrics import parse_duration_s
from casslab.cluster.class_names import stress_command_classes
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import CasslabError, ConfigError, UsageError
from casslab.load import credentials, engine
from casslab.load.front_end import SearchLoad
from casslab.load.session import LoadSession
from casslab.load.stress.parse import parse_stress

RESULT_FILE = "find.json"
FIGURE_FILE = "find.png"
RAMP_RESULT_FILE = "ramp.json"
RAMP_FIGURE_FILE = "ramp.png"

_PASS_THROUGH = {
    "allow_extra_args": True,
    "ignore_unknown_options": True,
    "help_option_names": ["--help"],
}


def _option(help_text: str, *names: str) -> Any:
    return typer.Option(*names, help=help_text)


P99 = Annotated[
    str | None,
    _option("The SLO: p99 response time at most this, with its unit (20ms, 0.5s).", "--p99"),
]
Errors = Annotated[
    str, _option("Failed operations allowed per run: 0, or a share such as 0.1%.", "--errors")
]
ClosedLoop = Annotated[
    bool,
    _option(
        "cassandra-stress's closed-loop thread ramp (4, 8, 16, 24, 36, ... threads until the "
        "op rate stops growing) instead of the open-loop search.",
        "--closed-loop",
    ),
]
JsonOut = Annotated[bool, _option("Print only the result (JSON) on standard output.", "--json")]
Out = Annotated[
    Path | None,
    _option("Directory of the result, figure and engine files (default ./capacity-TIME).", "--out"),
]
StepDuration = Annotated[str, _option("Measured length of each run.", "--step-duration")]
Warmup = Annotated[str, _option("Discarded warm-up before each run.", "--warmup")]
FirstWarmup = Annotated[
    str, _option("Extra warm-up of the first run (a cold JVM).", "--first-warmup")
]
StartRate = Annotated[str, _option("Rate of the first run, ops/s.", "--start-rate")]
MinRate = Annotated[str, _option("Lowest rate tried, ops/s.", "--min-rate")]
MaxRate = Annotated[str, _option("Highest rate tried, ops/s.", "--max-rate")]
Factor = Annotated[float, _option("Ramp factor between rates until a run fails.", "--factor")]
Precision = Annotated[
    str, _option("Stop bisecting when the bracket is this narrow (relative).", "--precision")
]
Repeats = Annotated[int, _option("Runs that must all pass at the answer.", "--repeats")]
MaxRuns = Annotated[int, _option("Most runs in a search.", "--max-runs")]
MinRecall = Annotated[
    str | None,
    _option(
        "A vector workload's recall floor: a run whose mean recall@k is below it fails "
        "(0.95 or 95%).",
        "--min-recall",
    ),
]
Preload = Annotated[
    str | None,
    _option(
        "Load data first with this stress or `ycsb load` command (same data seed).", "--preload"
    ),
]


def _read_settings(
    p99: str | None,
    errors: str,
    start_rate: str,
    min_rate: str,
    max_rate: str,
    factor: float,
    precision: str,
    repeats: int,
    max_runs: int,
    min_recall: str | None,
) -> FindSettings:
    if p99 is None:
        raise UsageError(
            "capacity find: give the SLO, e.g. --p99 20ms (or --closed-loop for the thread ramp)"
        )
    try:  # the options' own values: a usage error (exit 2)
        return settings(
            p99_slo_ms=parse_slo_ms(p99),
            error_share=parse_error_share(errors),
            start_rate_per_s=parse_rate_per_s(start_rate, option="--start-rate"),
            min_rate_per_s=parse_rate_per_s(min_rate, option="--min-rate"),
            max_rate_per_s=parse_rate_per_s(max_rate, option="--max-rate"),
            ramp_factor=factor,
            precision=parse_percent(precision, option="--precision"),
            repeats=repeats,
            max_runs=max_runs,
            min_recall=parse_recall(min_recall) if min_recall is not None else None,
        )
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _save(out: Path, name: str, text: str) -> Path:
    path = out / name
    path.write_text(text + "\n", encoding="utf-8")
    return path


def _finish(view: View, result: FindResult, out: Path, title: str) -> None:
    from casslab.capacity.find_figure import find_figure  # matplotlib: only when drawing

    _save(out, RESULT_FILE, result.model_dump_json(indent=2))
    if result.points:
        (out / FIGURE_FILE).write_bytes(find_figure(result, title))
    if view.json_out:
        typer.echo(result.model_dump_json(indent=2))
    else:
        view.console.print(curve_table(result))
    for line in answer_lines(result):
        view.say(line)
    if result.elapsed_s is not None:
        view.say(f"search: {len(result.points)} runs in {elapsed(result.elapsed_s)}")
    view.say(
        f"result: {out / RESULT_FILE}" + (f", figure: {out / FIGURE_FILE}" if result.points else "")
    )


def _search(
    view: View,
    command: SearchLoad,
    find: FindSettings,
    measure: EngineMeasure,
    out: Path,
) -> FindResult:
    start = time.monotonic()
    latest: list[FindResult] = []

    def on_point(point: Point, so_far: FindResult) -> None:
        view.say(point_line(point, find.p99_slo_ms))
        latest[:] = [so_far.model_copy(update={"elapsed_s": time.monotonic() - start})]
        _save(out, RESULT_FILE, latest[0].model_dump_json(indent=2))

    title = f"capacity find: {command.display}"
    try:
        result = find_capacity(measure, find, on_point=on_point)
    except KeyboardInterrupt as interrupt:
        if latest:
            _finish(view, latest[0], out, title)
        raise Interrupted(f"the runs measured so far are in {out / RESULT_FILE}") from interrupt
    except CasslabError:
        if latest:
            view.console.print(
                f"the {len(latest[0].points)} runs measured before the error are in "
                f"{out / RESULT_FILE}",
                highlight=False,
            )
        raise
    result = result.model_copy(update={"elapsed_s": time.monotonic() - start})
    _finish(view, result, out, title)
    return result


def _ramp(
    view: View,
    command: SearchLoad,
    out: Path,
    step_s: float,
    warmup_s: float,
    slo_ms: float | None,
    session: LoadSession,
) -> RampResult:
    from casslab.capacity.find_figure import ramp_figure  # matplotlib: only when drawing

    view.say(f"closed-loop thread ramp of {command.display} ({step_s:g} s steps)")
    start = time.monotonic()
    result = run_ramp(
        command,
        out / "ramp",
        step_duration_s=step_s,
        warmup_s=warmup_s,
        p99_slo_ms=slo_ms,
        session=session,
    )
    result = result.model_copy(update={"elapsed_s": time.monotonic() - start})
    _save(out, RAMP_RESULT_FILE, result.model_dump_json(indent=2))
    (out / RAMP_FIGURE_FILE).write_bytes(ramp_figure(result, f"thread ramp: {command.display}"))
    if view.json_out:
        typer.echo(result.model_dump_json(indent=2))
    table = Table(title="closed-loop thread ramp")
    for name in ("threads", "op rate/s", "p99 ms", "errors", "SLO"):
        table.add_column(name, justify="right")
    for step in result.steps:
        meets = {None: "", True: "met", False: "missed"}[step.meets_slo]
        best = " (best)" if step.threads == result.best_threads else ""
        table.add_row(
            f"{step.threads}{best}",
            f"{step.op_rate:,.0f}",
            ms(step.p99_ms),
            str(step.errors),
            meets,
        )
    if not view.json_out:
        view.console.print(table)
    view.say(
        f"best: {result.best_threads} threads, {result.op_rate or 0:,.0f} ops/s, p99 "
        f"{ms(result.p99_ms_at_best)} ms (closed loop: service time, queueing hidden)"
    )
    if slo_ms is not None:
        under = result.best_threads_under_slo
        view.say(
            f"best under p99 {slo_ms:g} ms: {under} threads, {result.op_rate_under_slo:,.0f} ops/s"
            if under is not None and result.op_rate_under_slo is not None
            else f"no step met p99 {slo_ms:g} ms"
        )
    view.say(f"ramp took {elapsed(result.elapsed_s or 0)}; result: {out / RAMP_RESULT_FILE}")
    return result


def _check_classes(
    args: list[str], preload: str | None, spec: WorkloadSpec, contact: list[str]
) -> None:
    """The classes the workload's (and the preload's) stress -schema or user profiles name,
    against the target's Cassandra version (:func:`casslab.cli.load_options.check_classes`)."""
    named = []
    for prefix, words in (("", args), ("--preload: ", [preload] if preload else [])):
        if words:
            front, given = split_words(words)
            if front.name == "stress":
                named += stress_command_classes(parse_stress(given), Path.cwd(), prefix)
    check_classes(spec, contact, named)


def find(
    ctx: typer.Context,
    p99: P99 = None,
    errors: Errors = "0",
    closed_loop: ClosedLoop = False,
    json_out: JsonOut = False,
    out: Out = None,
    step_duration: StepDuration = "10s",
    warmup: Warmup = "3s",
    first_warmup: FirstWarmup = "10s",
    start_rate: StartRate = "1000/s",
    min_rate: MinRate = "10/s",
    max_rate: MaxRate = "1000000/s",
    factor: Factor = 2.0,
    precision: Precision = "5%",
    repeats: Repeats = 3,
    max_runs: MaxRuns = 40,
    preload: Preload = None,
    min_recall: MinRecall = None,
    seed: Seed = 0,
    data_seed: DataSeed = 0,
    engine_cpus: EngineCpus = None,
) -> None:
    """The highest rate whose p99 stays under an SLO (open loop), or the thread-ramp maximum.

    Example: casslab capacity find --p99 20ms "write -pop seq=1..100000 -rate threads=64".

    The workload is a cassandra-stress command without n=, duration= or fixed=, or a YCSB
    run after `ycsb` (ycsb run -P workloada -p recordcount=10000). Runs ramp up by --factor
    from --start-rate until one fails, bisect to --precision, and the answer must pass
    --repeats runs. A read workload needs data: --preload 'write -pop seq=1..100000 n=100000'.

    --closed-loop runs cassandra-stress's thread ramp instead and reports the best thread
    count. --min-recall 0.95 adds a vector workload's recall floor to the SLO
    (user profile=@vector 'ops(ann=1)'). Exits 2 when no rate meets the SLO.
    """
    refuse_casslab_typos(ctx, "cassandra-stress and YCSB", "-rate")
    try:  # the options' own values: a usage error (exit 2)
        step_s = parse_duration_s(step_duration, "--step-duration")
        warmup_s = _seconds(warmup, "--warmup")
        first_s = _seconds(first_warmup, "--first-warmup")
        slo_ms = parse_slo_ms(p99) if p99 is not None else None
    except ConfigError as error:
        raise UsageError(str(error)) from None
    find_settings = None
    if closed_loop and min_recall is not None:
        raise UsageError("capacity find --min-recall: the floor is of the open-loop search")
    if not closed_loop:
        find_settings = _read_settings(
            p99,
            errors,
            start_rate,
            min_rate,
            max_rate,
            factor,
            precision,
            repeats,
            max_runs,
            min_recall,
        )
    contact = default_contact_points()
    command = parse_command(
        list(ctx.args),
        contact_points=contact,
        closed_loop=closed_loop,
        seed=seed,
        data_seed=data_seed,
    )
    if find_settings is not None and find_settings.min_recall is not None:
        require_recall(command)
    # against the current cluster, its login, CA and local datacenter (an attached one's)
    command = command.model_copy(update={"spec": with_current_access(command.spec, contact)})
    loader = None
    if preload is not None:
        if split_words([preload])[0].name != command.front_end:
            raise UsageError(
                f"--preload {preload!r}: use the workload's tool ({command.front_end}) for it"
            )
        loader = preload_spec([preload], contact_points=contact, data_seed=data_seed)
        loader = with_current_access(loader, contact)
        credentials.require_password_env(loader.connection)
    credentials.require_password_env(command.spec.connection)
    _check_classes(list(ctx.args), preload, command.spec, contact)
    if engine_cpus is not None:
        from casslab.host.engine_cgroup import check_engine_cpus

        check_engine_cpus(engine_cpus)
    engine.engine_binary()  # built?
    check_reachable(command.spec.connection.contact_points)
    target = out or Path.cwd() / f"capacity-{datetime.now():%Y%m%d-%H%M%S}"
    target.mkdir(parents=True, exist_ok=True)
    view = View(json_out)
    with LoadSession(engine_cpus) as session:
        if loader is not None:
            view.say(f"preload: {preload}")
            run_preload(loader, target / "preload", session)
        if closed_loop:
            _ramp(view, command, target, step_s, warmup_s, slo_ms, session)
            return
        assert find_settings is not None
        view.say(
            f"capacity find: {command.display}; p99 <= {find_settings.p99_slo_ms:g} ms, open "
            f"loop, {step_s:g} s runs after {warmup_s:g} s warm-up, into {target}"
        )
        measure = EngineMeasure(
            command,
            target,
            step_duration_s=step_s,
            warmup_s=warmup_s,
            first_warmup_s=first_s,
            seed=seed,
            session=session,
        )
        result = _search(view, command, find_settings, measure, target)
    if result.max_rate is None:
        raise typer.Exit(OUTCOME_FAILED)  # no rate meets the SLO


def _seconds(text: str, option: str) -> float:
    """A duration that may be zero (``0s``)."""
    from casslab.units import duration_s

    seconds = duration_s(text)
    if seconds is None:
        raise ConfigError(f"{option} {text!r}: give a duration like 3s, 500ms or 0")
    return seconds


def register(app: typer.Typer) -> None:
    """Add ``find`` to the capacity group."""
    app.command("find", context_settings=_PASS_THROUGH)(find)
