"""``casslab stress ...`` (cassandra-stress syntax) and ``casslab ycsb load|run ...``.

Parse (pure, :mod:`casslab.load.stress` / :mod:`casslab.load.ycsb`), run the engine
(:func:`casslab.load.engine.run`), print the rows rendered by :mod:`casslab.cli.stress_render`
live, and write ``-log file=`` and ``-graph file=`` (:mod:`casslab.cli.stress_graph`) when
asked. ``--dry-run`` prints the engine spec and sends nothing. ``--engine-cpus`` runs the
engine in a cgroup of its own pinned to those CPUs (:func:`casslab.cluster.engine_cgroup`).
``--clients N`` and ``--client-hosts FILE`` split the run over several engines
(:mod:`casslab.cli.stress_clients`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer

from casslab.cli import stress_render
from casslab.cli.stress_graph import (
    add_revision,
    render_graph_html,
    revision_from_intervals,
    revisions_from_html,
)
from casslab.errors import EngineError
from casslab.load import credentials, engine, wording
from casslab.load.engine import EngineResult, Wording
from casslab.load.records import IntervalRecord, SummaryRecord
from casslab.load.spec import Connection, Output, WorkloadSpec
from casslab.load.stress import StressCommand, parse_stress
from casslab.load.verify import with_verify
from casslab.load.ycsb import YcsbPhase, parse_ycsb

if TYPE_CHECKING:
    from casslab.cli.stress_clients import ClientPlan

FALLBACK_CONTACT_POINT = "127.0.0.1:9042"
_PASS_THROUGH = {
    "allow_extra_args": True,
    "ignore_unknown_options": True,
    "help_option_names": ["--help"],
}

DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Print the engine spec (JSON) and send nothing.")
]
JsonLines = Annotated[
    bool, typer.Option("--json", help="Print the engine's JSON lines instead of text.")
]
SEED_MAX = 2**63 - 1  # the engine's i64
Seed = Annotated[
    int,
    typer.Option(
        "--seed",
        min=0,
        max=SEED_MAX,
        help="The seed of the operation sequence (which operation runs next, on which key "
        "and row); with the same --data-seed, the same seed repeats the run exactly. It "
        "changes no value written or validated.",
    ),
]
DataSeed = Annotated[
    int,
    typer.Option(
        "--data-seed",
        min=0,
        max=SEED_MAX,
        help="The seed of the values written and validated: the same data seed makes a "
        "read validate what an earlier write wrote; --seed only changes the operation "
        "sequence.",
    ),
]
Workdir = Annotated[
    Path | None,
    typer.Option("--workdir", help="Keep the spec and engine output here (default: temporary)."),
]
Timeout = Annotated[
    float | None, typer.Option("--timeout", help="Stop the engine after this many seconds.")
]
EngineCpus = Annotated[
    str | None,
    typer.Option(
        "--engine-cpus",
        help="Run the load engine in a cgroup of its own pinned to these CPUs (e.g. 1 or "
        "0-1), so that it takes no CPU from the nodes on theirs; needs root.",
    ),
]
Clients = Annotated[
    int,
    typer.Option(
        "--clients",
        help="Run the load from N engines on this machine, each a disjoint share of the "
        "rate, threads, operations and seq keys; their results are merged exactly "
        "(docs/clients.md).",
    ),
]
ClientHosts = Annotated[
    Path | None,
    typer.Option(
        "--client-hosts",
        help="Run one engine on each `clients:` host of this inventory over SSH, each a "
        "disjoint share as with --clients; merged exactly (docs/clients.md).",
    ),
]


VerifyAt = Annotated[
    str | None,
    typer.Option(
        "--verify",
        metavar="CL",
        help="After the run, read back every key a write acknowledged at this consistency "
        "level (e.g. QUORUM) and report how many are lost (casslab.load.verify).",
    ),
]


def default_contact_points() -> list[str]:
    """The current cluster's contact points, else (no current cluster) 127.0.0.1:9042. A
    current cluster whose state cannot be read is an error, not a silent fallback."""
    from casslab.cluster import current_contact_points, current_name

    if current_name() is None:
        return [FALLBACK_CONTACT_POINT]
    return list(current_contact_points()) or [FALLBACK_CONTACT_POINT]


def with_current_access(spec: WorkloadSpec, defaults: list[str]) -> WorkloadSpec:
    """``spec`` with the current cluster's user, password variable, CA and local
    datacenter when it runs against that cluster (its contact points are the defaults)."""
    if spec.connection.contact_points != defaults or defaults == [FALLBACK_CONTACT_POINT]:
        return spec
    from casslab.cluster import current_access

    return credentials.with_cluster_access(spec, current_access())


def _echo(line: str, *, log: IO[str] | None = None, err: bool = False) -> None:
    typer.echo(line, err=err)
    if log is not None:
        log.write(line + "\n")
        log.flush()


@contextmanager
def _open_log(path: str | None) -> Iterator[IO[str] | None]:
    if path is None:
        yield None
        return
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as handle:
        yield handle


@contextmanager
def _workdir(path: Path | None) -> Iterator[Path]:
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="casslab-load-") as tmp:
        yield Path(tmp)


def _check_engine_cpus(engine_cpus: str | None) -> None:
    """Refuse an ``--engine-cpus`` this host or user cannot have, before anything runs."""
    if engine_cpus is not None:
        from casslab.cluster import check_engine_cpus

        check_engine_cpus(engine_cpus)


def _run_engine(
    spec: WorkloadSpec,
    workdir: Path,
    on_interval: Callable[[IntervalRecord], None],
    timeout_s: float | None,
    words: Wording,
    engine_cpus: str | None,
) -> EngineResult:
    """Run the engine, in its own cgroup pinned to ``engine_cpus`` when given."""
    if engine_cpus is None:
        return engine.run(
            spec, workdir, on_interval=on_interval, timeout_s=timeout_s, wording=words
        )
    from casslab.cluster import engine_cgroup

    with engine_cgroup(engine_cpus) as preexec:
        return engine.run(
            spec,
            workdir,
            on_interval=on_interval,
            timeout_s=timeout_s,
            wording=words,
            preexec=preexec,
        )


def _check_clients(
    spec: WorkloadSpec, clients: int, hosts: Path | None, engine_cpus: str | None
) -> ClientPlan | None:
    """The engines the run is split across (None: one local engine); a count or client
    inventory the workload cannot be split into is refused here, before anything runs."""
    if clients == 1 and hosts is None:
        return None
    from casslab.cli.stress_clients import check_clients

    return check_clients(spec, clients, hosts, engine_cpus)


def _report_errors(result: EngineResult) -> None:
    """Each distinct engine error once, with how often it came (the first 10 kinds)."""
    counts: dict[str, int] = {}
    for record in result.errors:
        text = f"{record.op}: {record.message}" if record.op else record.message
        counts[text] = counts.get(text, 0) + 1
    for text, count in list(counts.items())[:10]:
        times = f" ({count} times)" if count > 1 else ""
        typer.echo(f"engine error: {text}{times}", err=True)


# ---------------------------------------------------------------- stress


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
) -> None:
    """Run a cassandra-stress command line (same syntax), with casslab's engine.

    Example: casslab stress mixed 'ratio(write=9,read=1)' duration=60s -rate threads=64

    Commands: write, read, mixed, counter_write, counter_read, user.

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
    if verify is not None:
        spec = with_verify(spec, verify, workload=f"stress {command.kind.value}")
    merged = _check_clients(spec, clients, client_hosts, engine_cpus)
    _check_engine_cpus(engine_cpus)
    if dry_run:
        typer.echo(credentials.masked(spec).model_dump_json(indent=2))
        return
    credentials.require_password_env(spec.connection)
    progress = stress_render.StressProgress()
    intervals: list[IntervalRecord] = []
    threads = 0
    with _open_log(command.log.file) as log, _workdir(workdir) as work:

        def text(line: str) -> None:
            """Text goes to the terminal, or only to -log file= when --json is on."""
            if json_lines:
                if log is not None:
                    log.write(line + "\n")
                    log.flush()
            else:
                _echo(line, log=log)

        text(f"Running {command.display()}")
        text(stress_render.stress_header([op.name for op in spec.operations]))

        def on_interval(record: IntervalRecord) -> None:
            nonlocal progress, threads
            if record.phase == "warmup":
                return
            intervals.append(record)
            if json_lines:
                typer.echo(record.model_dump_json())
            if record.phase == "ramp" and record.threads != threads:
                threads = record.threads
                text(f"Running with {threads} threadCount")
            progress = stress_render.advance(progress, record)
            for row in stress_render.stress_interval_rows(record, progress):
                text(row)

        words = wording.stress(files_kept=workdir is not None)
        if merged:
            from casslab.cli import stress_clients

            result, run = stress_clients.run_stress(
                command, spec, merged, work, text, json_lines, (timeout, words, engine_cpus)
            )
            intervals = list(result.intervals)
        else:
            result = _run_engine(spec, work, on_interval, timeout, words, engine_cpus)
            summary: SummaryRecord = result.summary
            if json_lines:
                typer.echo(summary.model_dump_json())
            if not command.log.no_summary:
                text("")
                for line in stress_render.stress_ramp(summary):
                    text(line)
                for line in stress_render.stress_results(summary):
                    text(line)
                text("END")
    if verify is not None and not json_lines:
        typer.echo(stress_render.verify_line(result.summary))
    _report_errors(result)
    if command.graph.file is not None:
        _write_graph(command, intervals)
    if merged:
        stress_clients.report_failures(run)
    failed = stress_render.failed_operations(result.summary, result.errors)
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


# ---------------------------------------------------------------- ycsb


def _ycsb(
    phase: YcsbPhase,
    ctx: typer.Context,
    dry_run: bool,
    json_lines: bool,
    seed: int,
    data_seed: int,
    workdir: Path | None,
    timeout: float | None,
    engine_cpus: str | None,
    clients: int,
    client_hosts: Path | None,
) -> None:
    command = parse_ycsb([phase.value, *ctx.args])
    defaults = default_contact_points()
    connection = Connection(contact_points=command.contact_points(defaults))
    spec = with_current_access(
        command.to_spec(connection, seed=seed, data_seed=data_seed), defaults
    )
    merged = _check_clients(spec, clients, client_hosts, engine_cpus)
    _check_engine_cpus(engine_cpus)
    if dry_run:
        typer.echo(credentials.masked(spec).model_dump_json(indent=2))
        return
    credentials.require_password_env(spec.connection)
    if merged:
        from casslab.cli.stress_clients import run_ycsb

        with _workdir(workdir) as work:
            limits = (timeout, wording.ycsb(files_kept=workdir is not None), engine_cpus)
            run_ycsb(spec, merged, work, json_lines, limits)
        return
    total = 0
    with _workdir(workdir) as work:

        def on_interval(record: IntervalRecord) -> None:
            nonlocal total
            if record.phase == "warmup":
                return
            total += record.total.count
            if json_lines:
                typer.echo(record.model_dump_json())
            elif command.status:
                typer.echo(stress_render.ycsb_status(record, total), err=True)

        words = wording.ycsb(files_kept=workdir is not None)
        result = _run_engine(spec, work, on_interval, timeout, words, engine_cpus)
    summary: SummaryRecord = result.summary
    if json_lines:
        typer.echo(summary.model_dump_json())
    else:
        for line in stress_render.ycsb_summary(summary):
            typer.echo(line)
    _report_errors(result)
    failed = stress_render.failed_operations(summary, result.errors)
    if failed is not None:  # YCSB has no option to ignore failed operations
        raise EngineError(f"{failed}; casslab ycsb exits non-zero when any operation fails")


def ycsb_load(
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
) -> None:
    """YCSB load phase: casslab ycsb load -P workloada -p recordcount=10000 -threads 32"""
    _ycsb(
        YcsbPhase.LOAD,
        ctx,
        dry_run,
        json_lines,
        seed,
        data_seed,
        workdir,
        timeout,
        engine_cpus,
        clients,
        client_hosts,
    )


def ycsb_run(
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
) -> None:
    """YCSB transaction phase: casslab ycsb run -P workloada -p operationcount=100000 -s"""
    _ycsb(
        YcsbPhase.RUN,
        ctx,
        dry_run,
        json_lines,
        seed,
        data_seed,
        workdir,
        timeout,
        engine_cpus,
        clients,
        client_hosts,
    )


def register(app: typer.Typer) -> None:
    """Add ``stress`` and the ``ycsb`` group to the casslab app."""
    app.command("stress", context_settings=_PASS_THROUGH)(stress)
    ycsb_app = typer.Typer(
        name="ycsb",
        help="YCSB core workloads against Cassandra (load | run).",
        no_args_is_help=True,
    )
    ycsb_app.command("load", context_settings=_PASS_THROUGH)(ycsb_load)
    ycsb_app.command("run", context_settings=_PASS_THROUGH)(ycsb_run)
    app.add_typer(ycsb_app, name="ycsb")
