"""``casslab ycsb load|run ...``: YCSB's command line (parsed by :mod:`casslab.load.ycsb`)
on casslab's engine, its summary printed as YCSB prints it; ``--clients`` and
``--client-hosts`` split the run (:mod:`casslab.cli.stress_clients`), ``--verify CL`` reads
back every acknowledged write after it (:mod:`casslab.load.verify`), ``--profile KIND``
records the current cluster's nodes from the first measured interval, as ``casslab stress``
does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer

from casslab.analysis.profile_kind import ProfileKind
from casslab.cli.load_options import (
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
    check_clients,
    check_engine_cpus,
    check_profile,
    check_timeout,
    default_contact_points,
    profiled,
    refuse_casslab_typos,
    report_errors,
    say_profiles,
    with_current_access,
    workdir_for,
)
from casslab.engine_contract.engine_records import IntervalRecord, SummaryRecord
from casslab.engine_contract.workload_spec import Connection
from casslab.errors import EngineError
from casslab.load import credentials, run_outcome
from casslab.load.front_ends import front_end
from casslab.load.session import LoadSession
from casslab.load.verify import with_verify
from casslab.load.ycsb import YcsbPhase, parse_ycsb
from casslab.load.ycsb import console as ycsb_console


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
    verify: str | None,
    profile: tuple[list[ProfileKind] | None, Path | None],
) -> None:
    refuse_casslab_typos(ctx, "YCSB", "-p")
    check_timeout(timeout)
    command = parse_ycsb([phase.value, *ctx.args])
    defaults = default_contact_points()
    connection = Connection(contact_points=command.contact_points(defaults))
    spec = with_current_access(
        command.to_spec(connection, seed=seed, data_seed=data_seed), defaults
    )
    if verify is not None:
        spec = with_verify(spec, verify, workload=f"ycsb {phase.value}")
    words = front_end("ycsb").wording(files_kept=workdir is not None)
    merged = check_clients(spec, clients, client_hosts, engine_cpus, words)
    check_engine_cpus(engine_cpus)
    kinds = check_profile(profile[0], merged is not None)
    credentials.require_password_env(spec.connection)  # before anything starts, dry or not
    if dry_run:
        typer.echo(credentials.masked(spec).model_dump_json(indent=2))
        return
    if merged:
        from casslab.cli.stress_clients import run_ycsb

        with workdir_for(workdir) as work, LoadSession(engine_cpus) as session:
            run_ycsb(spec, merged, work, json_lines, (timeout, words, session))
        return
    total = 0
    with (
        workdir_for(workdir) as work,
        LoadSession(engine_cpus) as session,
        profiled(kinds, profile[1]) as (profiler, profiles),
    ):

        def on_interval(record: IntervalRecord) -> None:
            nonlocal total
            if record.phase == "warmup":
                return
            if profiler is not None and not profiler.running:
                profiler.start()  # from the first measured interval on
            total += record.total.count
            if json_lines:
                typer.echo(record.model_dump_json())
            elif command.status:
                typer.echo(ycsb_console.ycsb_status(record, total), err=True)

        result = session.run(spec, work, on_interval=on_interval, timeout_s=timeout, wording=words)
    say_profiles(profiles)
    summary: SummaryRecord = result.summary
    if json_lines:
        typer.echo(summary.model_dump_json())
    else:
        for line in ycsb_console.ycsb_summary(summary):
            typer.echo(line)
        if spec.verify is not None:
            typer.echo(run_outcome.verify_line(summary))
    report_errors(result)
    failed = run_outcome.failed_operations(summary, result.errors)
    if failed is not None:  # YCSB has no option to ignore failed operations
        raise EngineError(f"{failed}; casslab ycsb exits non-zero when any operation fails")


def _command(phase: YcsbPhase, doc: str) -> Callable[..., None]:
    """The ``casslab ycsb PHASE`` command: both phases take the same options."""

    def command(
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
        _ycsb(
            phase,
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
            verify,
            (profile, profile_dir),
        )

    command.__doc__ = doc
    return command


ycsb_load = _command(
    YcsbPhase.LOAD,
    "YCSB load phase: casslab ycsb load -P workloada -p recordcount=10000 -threads 32",
)
ycsb_run = _command(
    YcsbPhase.RUN,
    "YCSB transaction phase: casslab ycsb run -P workloada -p operationcount=100000 -s",
)
