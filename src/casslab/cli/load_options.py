"""The options and helpers ``casslab stress`` (:mod:`casslab.cli.stress`) and ``casslab
ycsb`` (:mod:`casslab.cli.ycsb`) share: the option types, the default contact points, the
engine's working directory, the checks of its CPU placement and of the split over several
clients (the engines themselves run in a :class:`casslab.load.session.LoadSession`), and the
report of engine errors."""

from __future__ import annotations

import difflib
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from casslab.analysis.profile_kind import ProfileKind
from casslab.cluster.class_catalogue import Named
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import CasslabError, UsageError, WorkloadSyntaxError, problems_message
from casslab.load import credentials
from casslab.load.engine import EngineResult, Wording

if TYPE_CHECKING:
    from casslab.experiment.steps.profile.profile_phase import NodeProfile, Profiler
    from casslab.load.session import LoadClients

FALLBACK_CONTACT_POINT = "127.0.0.1:9042"
PASS_THROUGH = {
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


def refuse_casslab_typos(ctx: typer.Context, tool: str, example: str) -> None:
    """A ``--word`` among the load tool's own arguments is no option of ``tool`` (its
    options have one dash): it is a casslab option misspelt, a usage error (exit 2)
    naming it, the closest option and the command's options."""
    known = sorted(
        {o for p in ctx.command.params for o in getattr(p, "opts", []) if o.startswith("--")}
    )
    for token in ctx.args:
        if not token.startswith("--") or len(token) == 2:
            continue
        name = token.split("=", 1)[0]
        if name in known:
            raise UsageError(
                f"{name} after `--` is taken as one of {tool}'s arguments, which it is not; "
                f"put {name} before the `--`"
            )
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise UsageError(
            f"{name}: no such option of `{ctx.command_path}`; {hint}its options: "
            f"{', '.join(known)} ({tool}'s own options start with one dash, e.g. {example})"
        )


def check_timeout(timeout: float | None) -> None:
    """``--timeout``: seconds above zero."""
    if timeout is not None and not timeout > 0:
        raise UsageError(
            f"--timeout {timeout:g}: give the seconds after which the engine stops, above "
            "zero (e.g. --timeout 600), or leave it out"
        )


ProfileKinds = Annotated[
    list[ProfileKind] | None,
    typer.Option(
        "--profile",
        help="Record the current cluster's nodes with JDK Flight Recorder over the measured "
        "part (not the warm-up) and draw a flame graph per node: cpu, alloc, lock or wall "
        "(repeat for several).",
    ),
]
ProfileDir = Annotated[
    Path | None,
    typer.Option(
        "--profile-dir",
        help="Where --profile writes node<N>.jfr, its collapsed stacks and flame graphs "
        "(default: profile-<UTC time> here).",
    ),
]


def check_profile(kinds: list[ProfileKind] | None, split: bool) -> list[ProfileKind]:
    """The profile kinds asked; --profile with a run split over several engines is a
    usage error (the profile starts at the first measured interval of one engine)."""
    if kinds and split:
        raise typer.BadParameter(
            "--profile records one engine's measured part; drop --clients/--client-hosts "
            "or --profile",
            param_hint="--profile",
        )
    return list(kinds or [])


@contextmanager
def profiled(
    kinds: list[ProfileKind], directory: Path | None
) -> Iterator[tuple[Profiler | None, list[NodeProfile]]]:
    """The current cluster's profiler for ``kinds`` (None without any) and the list that
    gets its profiles when the block ends (written into ``directory``, else
    ``profile-<UTC time>`` in the working directory)."""
    if not kinds:
        yield None, []
        return
    from casslab.experiment.steps.profile import profile_phase  # the cluster, JFR: if asked

    folder = directory or Path.cwd() / f"profile-{datetime.now(UTC):%Y%m%dT%H%M%S}"
    profiler = profile_phase.current_cluster_profiler(kinds, folder)
    note = profile_phase.cold_start_note()
    if note is not None:
        typer.echo(note, err=True)
    with profile_phase.recorded(profiler) as profiles:
        yield profiler, profiles


def say_profiles(profiles: list[NodeProfile]) -> None:
    """Where each node's flame graph was drawn (standard error)."""
    for drawn in profiles:
        typer.echo(f"Flame graph, node {drawn.node} {drawn.kind.value}: {drawn.svg_path}", err=True)


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


def check_vector_version(spec: WorkloadSpec, defaults: list[str], source: str) -> None:
    """A vector workload against the current cluster needs Cassandra 5.0 (its recorded
    version is checked before anything runs; another cluster refuses the schema itself)."""
    if spec.vectors is None or spec.connection.contact_points != defaults:
        return
    if defaults == [FALLBACK_CONTACT_POINT]:
        return
    from casslab.cluster.registry import current_version
    from casslab.load.stress.profile_vectors import check_version

    check_version(current_version(), source)


def check_classes(spec: WorkloadSpec, defaults: list[str], named: list[Named]) -> None:
    """The class names a command gives (:mod:`casslab.cluster.class_names`) against the classes
    of the Cassandra version it runs against: the current casslab cluster's (its state
    records it) when the command targets it, else casslab's default version, said in the
    message. Refused before anything starts, every unknown name at once."""
    if not named:
        return
    from casslab.cluster.class_catalogue import named_problems
    from casslab.cluster.config import class_catalogue_for
    from casslab.cluster.distribution import DEFAULT_VERSION
    from casslab.cluster.registry import current_name, current_version

    if current_name() is not None and spec.connection.contact_points == defaults:
        version, basis = current_version(), "the version the current casslab cluster runs"
    else:
        version = DEFAULT_VERSION
        basis = (
            f"casslab's default version: {', '.join(spec.connection.contact_points)} is no "
            "casslab cluster; `casslab attach` it to check against its own version"
        )
    try:
        catalogue = class_catalogue_for(version)
    except CasslabError as error:
        typer.echo(f"Note: the class names were not checked ({basis}): {error}", err=True)
        return
    problems = named_problems(named, catalogue)
    if problems:
        raise WorkloadSyntaxError(
            problems_message("the command", problems) + f"\n(checked against {basis})"
        )


@contextmanager
def workdir_for(path: Path | None) -> Iterator[Path]:
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="casslab-load-") as tmp:
        yield Path(tmp)


def check_engine_cpus(engine_cpus: str | None) -> None:
    """Refuse an ``--engine-cpus`` this host or user cannot have, before anything runs."""
    if engine_cpus is not None:
        from casslab.host.engine_cgroup import check_engine_cpus

        check_engine_cpus(engine_cpus)


def check_clients(
    spec: WorkloadSpec,
    clients: int,
    hosts: Path | None,
    engine_cpus: str | None,
    wording: Wording | None = None,
) -> LoadClients | None:
    """The engines the run is split across (None: one local engine); a count or client
    inventory the workload cannot be split into is refused here, before anything runs,
    in the front end's ``wording``."""
    if clients == 1 and hosts is None:
        return None
    from casslab.cli.stress_clients import check_clients

    return check_clients(spec, clients, hosts, engine_cpus, wording)


def report_errors(result: EngineResult) -> None:
    """Each distinct engine error once, with how often it came (the first 10 kinds)."""
    counts: dict[str, int] = {}
    for record in result.errors:
        text = f"{record.op}: {record.message}" if record.op else record.message
        counts[text] = counts.get(text, 0) + 1
    for text, count in list(counts.items())[:10]:
        times = f" ({count} times)" if count > 1 else ""
        typer.echo(f"engine error: {text}{times}", err=True)
