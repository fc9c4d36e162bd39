"""``casslab stress ...``: cassandra-stress's command line on casslab's engine, and the
``ycsb`` group's registration (:mod:`casslab.cli.ycsb`).

Parse (pure, :mod:`casslab.load.stress`), run the engine (:func:`casslab.load.engine.run`),
print the rows rendered by :mod:`casslab.load.stress.console` live, and write ``-log file=``
and ``-graph file=`` (:mod:`casslab.load.stress.graph`) when asked. ``--dry-run`` sends nothing:
it prints the statements it would run (:mod:`casslab.load.stress.plan_text`) on stderr and
the engine spec as JSON on stdout. ``--engine-cpus`` runs the engine in a cgroup of its own
pinned to those CPUs (:func:`casslab.host.engine_cgroup.engine_cgroup`). ``--clients N`` and
``--client-hosts FILE`` split the run over several engines
(:mod:`casslab.cli.stress_clients`). ``--profile KIND`` records the current cluster's nodes
with JDK Flight Recorder from the first measured interval to the end
(:mod:`casslab.experiment.steps.profile.profile_phase`) and writes their flame graphs into
``--profile-dir``. The options both commands share are in
:mod:`casslab.cli.load_options`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import typer

from casslab.cli.load_options import (
    PASS_THROUGH,
    ClientHosts,
    Clients,
    DataSeed,
    DryRun,
    EngineCpus,
    JsonLines,
    ProfileDir,
    ProfileKinds,
    Seed,
    Timeout,
    VerifyAt,
    Workdir,
    check_classes,
    check_clients,
    check_engine_cpus,
    check_profile,
    check_timeout,
    check_vector_version,
    default_contact_points,
    profiled,
    refuse_casslab_typos,
    report_errors,
    say_profiles,
    with_current_access,
    workdir_for,
)
from casslab.cli.stress_info import echo_info
from casslab.cli.ycsb import ycsb_load, ycsb_run
from casslab.cluster.class_names import stress_command_classes
from casslab.engine_contract.engine_records import IntervalRecord, SummaryRecord
from casslab.engine_contract.workload_spec import Connection, Output
from casslab.errors import EngineError
from casslab.load import credentials, run_outcome
from casslab.load.client_bound import EngineMeter, engine_warning
from casslab.load.front_ends import front_end
from casslab.load.session import LoadSession
from casslab.load.stress import StressCommand, parse_stress
from casslab.load.stress import console as stress_console
from casslab.load.stress.build import truncate_note
from casslab.load.stress.graph import (
    add_revision,
    render_graph_html,
    revision_from_intervals,
    revisions_from_html,
)
from casslab.load.stress.plan_text import plan_lines
from casslab.load.stress.reporting import header_due
from casslab.load.verify import with_verify

# ---------------------------------------------------------------- stress


def _echo(line: str, *, log: IO[str] | None = None) -> None:
    typer.echo(line)
    if log is not None:
        log.write(line + "\n")
        log.flush()


@contextmanager
def _open_log(path: str | None) -> Iterator[IO[str] | None]:
    """``-log file=``: the text of the run, also written there."""
    if path is None:
        yield None
        return
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as handle:
        yield handle


def _stress_output(command: StressCommand) -> Output:
    hdr = command.log.hdrfile
    return Output(
        interval_s=command.log.interval_s,
        hdr_log=str(Path(hdr).expanduser()) if hdr else None,
    )


def stress(
    ctx: typer.Context,
    dry_run: DryRun = False,
    json_lines: JsonLines = False,
    seed: Seed = 0,
    data_seed: DataSeed = 0,
    workdir: Workdir = None,
    timeout: Timeout = None,
    engine_cpus: EngineCpus = None,
    clients: Clients = 1,
    client_hosts: ClientHosts = None,
    verify: VerifyAt = None,
    profile: ProfileKinds = None,
    profile_dir: ProfileDir = None,
) -> None:
    """Run a cassandra-stress command line (same syntax), with casslab's engine.

    Example: casslab stress mixed 'ratio(write=9,read=1)' duration=60s -rate threads=64

    Commands: write, read, mixed, counter_write, counter_read, user; help [COMMAND|-OPTION]
    lists them and their options; print dist=DIST shows what a distribution generates.

    Options: n= or duration= (not both) cl= ratio(..) ops(..) profile= no-warmup truncate=

    Groups: -pop -rate -col -schema -node -port -mode -log -graph -errors -insert
    -transport

    Credentials: -mode user=U password=P, or -mode user=U password-env=VAR to read the
    password from the environment variable VAR (kept off the command line). Passwords
    are shown and stored as *suppressed*.

    Shell-escaped forms such as ratio\\(write=9,read=1\\) are accepted.

    Without -node: the current casslab cluster, else 127.0.0.1:9042.

    Exits 1 when any operation failed (after the report); -errors ignore keeps 0.
    """
    refuse_casslab_typos(ctx, "cassandra-stress", "-rate")
    check_timeout(timeout)
    if echo_info(list(ctx.args)):
        return
    command = parse_stress(list(ctx.args))
    defaults = default_contact_points()
    connection = Connection(contact_points=command.contact_points(defaults))
    spec = command.to_spec(
        connection,
        seed=seed,
        data_seed=data_seed,
        output=_stress_output(command),
        profile_dir=Path.cwd(),
    )
    spec = with_current_access(spec, defaults)
    check_vector_version(spec, defaults, command.profile or "")
    if verify is not None:
        spec = with_verify(spec, verify, workload=f"stress {command.kind.value}")
    merged = check_clients(spec, clients, client_hosts, engine_cpus)
    check_engine_cpus(engine_cpus)
    kinds = check_profile(profile, merged is not None)
    credentials.require_password_env(spec.connection)  # before anything starts, dry or not
    check_classes(spec, defaults, stress_command_classes(command, Path.cwd()))
    note = truncate_note(command, spec.rate)
    if note is not None:
        typer.echo(note, err=True)
    if dry_run:
        for line in plan_lines(spec):
            typer.echo(line, err=True)
        typer.echo(credentials.masked(spec).model_dump_json(indent=2))
        return
    progress = stress_console.StressProgress()
    intervals: list[IntervalRecord] = []
    threads = 0
    with (
        _open_log(command.log.file) as log,
        workdir_for(workdir) as work,
        LoadSession(engine_cpus) as session,
        profiled(kinds, profile_dir) as (profiler, profiles),
    ):

        def text(line: str) -> None:
            """Text goes to the terminal, or only to -log file= when --json is on."""
            if json_lines:
                if log is not None:
                    log.write(line + "\n")
                    log.flush()
            else:
                _echo(line, log=log)

        text(f"Running {command.display()}")
        header = stress_console.stress_header([op.name for op in spec.operations])
        text(header)
        since_header_s = 0.0

        def on_interval(record: IntervalRecord) -> None:
            nonlocal progress, threads, since_header_s
            if record.phase == "warmup":
                return
            intervals.append(record)
            if json_lines:
                typer.echo(record.model_dump_json())
            if record.phase == "ramp" and record.threads != threads:
                threads = record.threads
                text(f"Running with {threads} threadCount")
            if header_due(command.reporting.header_frequency_s, since_header_s):
                text(header)
                since_header_s = 0.0
            since_header_s += command.log.interval_s  # rows are of this period, nominally
            progress = stress_console.advance(progress, record)
            for row in stress_console.stress_interval_rows(record, progress):
                text(row)

        words = front_end("stress").wording(files_kept=workdir is not None)
        if merged:
            from casslab.cli import stress_clients

            result, run = stress_clients.run_stress(
                command, spec, merged, work, text, json_lines, (timeout, words, session)
            )
            intervals = list(result.intervals)
        else:
            meter = EngineMeter(engine_cpus)

            def measured(record: IntervalRecord) -> None:
                if profiler is not None and record.phase != "warmup" and not profiler.running:
                    profiler.start()  # the measured part only
                meter.interval(record)
                on_interval(record)

            result = session.run(
                spec,
                work,
                on_interval=measured,
                timeout_s=timeout,
                wording=words,
                on_start=meter.started,
            )
            summary: SummaryRecord = result.summary
            warning = engine_warning(meter.use(), spec, summary)
            if json_lines:
                typer.echo(summary.model_dump_json())
            if not command.log.no_summary:
                text("")
                for line in stress_console.stress_ramp(summary):
                    text(line)
                for line in stress_console.stress_results(summary):
                    text(line)
                text("END")
            if warning is not None:
                typer.echo(warning, err=True)
    say_profiles(profiles)
    if verify is not None and not json_lines:
        typer.echo(run_outcome.verify_line(result.summary))
    report_errors(result)
    if command.graph.file is not None:
        _write_graph(command, intervals)
    if merged:
        stress_clients.report_failures(run)
    failed = run_outcome.failed_operations(result.summary, result.errors)
    if failed is not None:
        if not command.errors.ignore:
            raise EngineError(f"{failed}; `-errors ignore` keeps the exit status 0")
        typer.echo(f"{failed}; exit status 0 as -errors ignore asks", err=True)


def _write_graph(command: StressCommand, intervals: list[IntervalRecord]) -> None:
    assert command.graph.file is not None
    path = Path(command.graph.file).expanduser()
    existing = None
    if path.is_file():
        existing = revisions_from_html(path.read_text(encoding="utf-8"))
    title = command.graph.title or f"casslab stress {command.kind.value}"
    revision = revision_from_intervals(command.graph.revision, intervals, command=command.display())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_graph_html(add_revision(existing, title, revision)), encoding="utf-8")


def register(app: typer.Typer) -> None:
    """Add ``stress`` and the ``ycsb`` group to the casslab app."""
    app.command("stress", context_settings=PASS_THROUGH)(stress)
    ycsb_app = typer.Typer(
        name="ycsb",
        help="YCSB core workloads against Cassandra (load | run).",
        no_args_is_help=True,
    )
    ycsb_app.command("load", context_settings=PASS_THROUGH)(ycsb_load)
    ycsb_app.command("run", context_settings=PASS_THROUGH)(ycsb_run)
    app.add_typer(ycsb_app, name="ycsb")
