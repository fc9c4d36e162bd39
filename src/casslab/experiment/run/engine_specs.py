"""Engine specs of a plan's commands, and the engine's own check of each before a run.

A workload spec the engine rejects should fail in the first second of ``casslab run`` (and
in ``casslab plan``), not at trial 37: :func:`check_engine_specs` asks the engine
(``casslab-engine --check``, which connects to nothing) about every distinct spec first.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from casslab.engine_contract.workload_spec import Connection, Consistency, WorkloadSpec
from casslab.errors import CasslabError, ExperimentError, SpecRejectedError
from casslab.experiment.design.plan_records import Plan
from casslab.experiment.file.load_commands import Command
from casslab.experiment.steps.verify.verification import measured_spec
from casslab.load.credentials import mask_text
from casslab.load.front_ends import front_end
from casslab.load.session import LoadSession
from casslab.load.shares import split

# --check parses and compiles a spec without connecting: any address will do.
_CHECK_CONNECTION = Connection(contact_points=["127.0.0.1:9042"])


def spec_for(
    command: Command,
    connection: Connection,
    seed: int,
    base_dir: Path | None = None,
    *,
    data_seed: int = 0,
) -> WorkloadSpec:
    """The engine spec of a command, built by its front end; files it names (a user
    profile, a YCSB ``-P`` file) are read relative to ``base_dir``, the experiment file's
    folder.

    ``seed`` draws the operation sequence (a trial's iteration); ``data_seed`` the values
    written and validated, fixed for a run, so that a measured phase reads back what the
    preload wrote."""
    parsed = front_end(command.tool).parse(command.text, base_dir=base_dir)
    return parsed.to_spec(connection, seed=seed, data_seed=data_seed)


def distinct_commands(plan: Plan) -> list[Command]:
    """Every preload and measured command of the plan, each once, in plan order."""
    seen: dict[tuple[str, str], Command] = {}
    for trial in plan.trials:
        for command in (trial.preload, trial.workload):
            if command is not None:
                seen.setdefault((command.tool, command.text), command)
    return list(seen.values())


def check_engine_specs(
    plan: Plan,
    base_dir: Path | None = None,
    clients: int = 1,
    verify: Consistency | None = None,
    *,
    session: LoadSession | None = None,
) -> int:
    """Ask the engine about the spec of every distinct command of ``plan`` (a measured one
    reading back its writes at ``verify``: the file's ``verify:``), and check that it
    splits among ``clients`` load clients; raise :class:`ExperimentError` naming the
    command and the reason for the first it rejects. Returns how many were checked.

    The engine's ``--check`` runs once per distinct spec of ``session`` (a ``casslab run``
    checks before it makes its run directory, then its runner again: the second asks
    nothing the first asked)."""
    session = session or LoadSession()
    commands = distinct_commands(plan)
    measured = {(t.workload.tool, t.workload.text) for t in plan.trials}
    keyspaces = {trial.keyspace for trial in plan.trials}
    with tempfile.TemporaryDirectory(prefix="casslab-check-") as tmp:
        for index, command in enumerate(commands):
            try:
                spec = spec_for(command, _CHECK_CONNECTION, 0, base_dir)
            except CasslabError as error:
                raise ExperimentError(
                    f"workload {mask_text(command.text)!r}: {error}; fix the command in the "
                    "experiment file (nothing was run)"
                ) from error
            if (command.tool, command.text) in measured:
                spec = measured_spec(spec, verify, command.text)
            _check_keyspace(command.text, spec, keyspaces)
            try:
                split(spec, clients)
            except CasslabError as error:
                raise ExperimentError(
                    f"workload {mask_text(command.text)!r} cannot be shared by the "
                    f"{clients} load clients: {error} (nothing was run)"
                ) from error
            try:
                session.check(spec, Path(tmp) / str(index))
            except SpecRejectedError as error:
                raise ExperimentError(
                    f"workload {mask_text(command.text)!r}: the load engine rejects it: "
                    f"{error.reason}; fix the command in the experiment file (nothing was run)"
                ) from error
            except CasslabError as error:
                raise ExperimentError(
                    f"workload {mask_text(command.text)!r}: {error}; fix the command in the "
                    "experiment file (nothing was run)"
                ) from error
    return len(commands)


def _check_keyspace(text: str, spec: WorkloadSpec, keyspaces: set[str]) -> None:
    """The command's keyspace is the file's ``schema.keyspace``: the trials' replication,
    reset and data captures are of that keyspace, and a workload elsewhere would run on
    data no trial empties."""
    if spec.keyspace is None or spec.keyspace in keyspaces:
        return
    named = ", ".join(sorted(keyspaces))
    raise ExperimentError(
        f"workload {mask_text(text)!r} uses keyspace {spec.keyspace!r}, but schema.keyspace "
        f"is {named!r}: the trials create, reset and capture that one; write schema: "
        f"{{keyspace: {spec.keyspace}}} (nothing was run)"
    )
