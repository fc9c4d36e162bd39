"""``casslab stress ... --clients N`` and ``casslab ycsb ... --clients N``: N local engines;
``--client-hosts hosts.yaml``: one engine on each of that inventory's ``clients:``.

The workload is split into N disjoint shares, the engines run at once on this machine (all
in the ``--engine-cpus`` cgroup when given) or on the client hosts over SSH, and their
output is merged exactly: the command's :class:`casslab.load.session.LoadSession` does it.
Printed after the run: the merged intervals and summary as the single-engine path prints
them, then one line per client (operations, op rate, errors) and every failed client with
its reason and stderr tail; the exit status is 1 when a client failed. Written: the merged
HDR log where ``-log hdrfile=`` asks (each client's log beside it, ``x.client-<i>.hlog``)
and in the work directory (``latency.hlog``, beside ``merged.json`` and ``client-<i>/``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer

from casslab.engine_contract.engine_records import SummaryRecord
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import ConfigError, EngineError, UsageError, WorkloadSyntaxError
from casslab.load import run_outcome
from casslab.load.engine import EngineResult, Wording
from casslab.load.merge import MergedRun
from casslab.load.session import LoadClients, LoadSession
from casslab.load.shares import split
from casslab.load.stress import StressCommand
from casslab.load.stress import console as stress_console
from casslab.load.ycsb import console as ycsb_console
from casslab.remote.inventory import load_inventory

MERGED_LOG = "latency.hlog"
MERGED_RUN = "merged.json"


def check_clients(
    spec: WorkloadSpec,
    n: int,
    client_hosts: Path | None = None,
    engine_cpus: str | None = None,
    wording: Wording | None = None,
) -> LoadClients | None:
    """The engines to run (None: one local engine, the single-engine path); a client count
    or client-host inventory the workload cannot be split into, or that cannot be combined
    with the other options, is refused here, before anything runs, in the front end's words
    (``wording``: the split speaks cassandra-stress's)."""
    say = (wording or Wording()).say
    if client_hosts is None:
        if n == 1:
            return None
        try:
            split(spec, n)
        except WorkloadSyntaxError as error:  # --clients is an option casslab checks
            raise UsageError(say(str(error))) from None
        return LoadClients(n)
    if n != 1:
        raise UsageError(
            f"--client-hosts {client_hosts} and --clients {n} cannot be combined: the "
            "inventory's clients: list sets the number of engines; drop --clients"
        )
    if engine_cpus is not None:
        raise UsageError(
            f"--engine-cpus {engine_cpus} places engines on this machine; with "
            f"--client-hosts {client_hosts} they run on the client hosts: drop --engine-cpus"
        )
    inventory = load_inventory(client_hosts)
    if not inventory.clients:
        raise ConfigError(
            f"inventory {inventory.path} has no `clients:`; add the hosts that run the load "
            "engine as clients: [{address: 10.0.0.21, user: root, key: ~/.ssh/id_ed25519}] "
            "(docs/clients.md)"
        )
    n = len(inventory.clients)
    try:
        split(spec, n)
    except WorkloadSyntaxError as error:
        raise WorkloadSyntaxError(
            f"{say(str(error))} (--client-hosts {client_hosts}: its {n} clients: hosts run "
            "one engine each; list fewer of them)"
        ) from None
    return LoadClients(n, inventory)


def run_merged(
    spec: WorkloadSpec,
    plan: LoadClients,
    work: Path,
    *,
    timeout_s: float | None,
    words: Wording,
    session: LoadSession,
    hdr_log: str | None,
) -> MergedRun:
    """Run the clients of ``plan`` from ``work`` and write the merged log and run record."""
    merged = session.run_clients(spec, plan, work, timeout_s=timeout_s, wording=words)
    if merged.hlog:
        (work / MERGED_LOG).write_text(merged.hlog, encoding="utf-8")
        if hdr_log is not None:
            target = Path(hdr_log).expanduser()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(merged.hlog, encoding="utf-8")
    (work / MERGED_RUN).write_text(merged.run.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return merged.run


def client_lines(run: MergedRun) -> list[str]:
    """One line per client that finished: operations, op rate, errors."""
    return [
        f"{line.client}: {line.ops:,} ops, {line.op_rate:,.0f} op/s, {line.errors:,} errors"
        for line in run.clients
    ]


def report_failures(run: MergedRun) -> None:
    """Every failed client, by name, with its reason and stderr tail; raises
    :class:`EngineError` (exit 1) when there is one."""
    for failure in run.failed:
        typer.echo(f"{failure.client} failed: {failure.reason}", err=True)
        if failure.stderr_tail:
            typer.echo(f"{failure.client} stderr (last lines):\n{failure.stderr_tail}", err=True)
    if run.failed:
        names = ", ".join(f.client for f in run.failed)
        total = len(run.failed) + len(run.clients)
        rest = (
            "the merged figures above are the other clients' only"
            if run.clients
            else "nothing to merge"
        )
        raise EngineError(
            f"{len(run.failed)} of {total} load clients failed ({names}); {rest}; see the "
            "reasons above"
        )


def summary_or_fail(run: MergedRun) -> SummaryRecord:
    if run.summary is None:
        report_failures(run)
        raise EngineError("no load client finished; nothing to merge")
    return run.summary


def stress_text(
    command: StressCommand, run: MergedRun, text: Callable[[str], None], json_lines: bool
) -> None:
    """The merged intervals, summary and client lines, as ``casslab stress`` prints one run."""
    progress = stress_console.StressProgress()
    for record in run.intervals:
        if json_lines:
            typer.echo(record.model_dump_json())
        progress = stress_console.advance(progress, record)
        for row in stress_console.stress_interval_rows(record, progress):
            text(row)
    summary = summary_or_fail(run)
    if json_lines:
        typer.echo(summary.model_dump_json())
    if not command.log.no_summary:
        text("")
        for line in stress_console.stress_results(summary):
            text(line)
        text("END")
    for line in client_lines(run):
        text(line)


def ycsb_text(run: MergedRun, json_lines: bool, *, verify: bool = False) -> None:
    """The merged summary (YCSB's lines), the read-back's line when ``verify``, and the
    client lines."""
    summary = summary_or_fail(run)
    if json_lines:
        for record in run.intervals:
            typer.echo(record.model_dump_json())
        typer.echo(summary.model_dump_json())
    else:
        for line in ycsb_console.ycsb_summary(summary):
            typer.echo(line)
        if verify:
            typer.echo(run_outcome.verify_line(summary))
    for line in client_lines(run):
        typer.echo(line, err=json_lines)


Limits = tuple[float | None, Wording, LoadSession]  # timeout_s, wording, the engines' session


def _run(spec: WorkloadSpec, plan: LoadClients, work: Path, limits: Limits) -> MergedRun:
    timeout_s, words, session = limits
    return run_merged(
        spec,
        plan,
        work,
        timeout_s=timeout_s,
        words=words,
        session=session,
        hdr_log=spec.output.hdr_log,
    )


def run_stress(
    command: StressCommand,
    spec: WorkloadSpec,
    plan: LoadClients,
    work: Path,
    text: Callable[[str], None],
    json_lines: bool,
    limits: Limits,
) -> tuple[EngineResult, MergedRun]:
    """``casslab stress`` from the clients of ``plan``: run and print; the merged result as
    one engine's (for the error report, ``-graph`` and the exit status) beside the run."""
    run = _run(spec, plan, work, limits)
    stress_text(command, run, text, json_lines)
    summary = summary_or_fail(run)
    return EngineResult(intervals=run.intervals, summary=summary, errors=run.errors), run


def run_ycsb(
    spec: WorkloadSpec, plan: LoadClients, work: Path, json_lines: bool, limits: Limits
) -> None:
    """``casslab ycsb load|run`` from the clients of ``plan``: run, print (with the
    read-back's line when the spec verifies), exit 1 on a failed client or a failed
    operation."""
    run = _run(spec, plan, work, limits)
    ycsb_text(run, json_lines, verify=spec.verify is not None)
    summary = summary_or_fail(run)
    for error in run.errors[:10]:
        typer.echo(f"engine error: {error.op}: {error.message}", err=True)
    report_failures(run)
    failed = run_outcome.failed_operations(summary, run.errors)
    if failed is not None:
        raise EngineError(f"{failed}; casslab ycsb exits non-zero when any operation fails")
