"""The ``casslab`` command line: parse, call the library, render. No logic here."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from casslab import __version__
from casslab.cluster import ClusterSpec, LocalCluster, clusters_root, distribution
from casslab.cluster.settings import parse_assignment
from casslab.cluster.wait import tail
from casslab.doctor import Verdict, run_checks
from casslab.errors import CasslabError, ConfigError

app = typer.Typer(
    name="casslab",
    help="A performance lab for Apache Cassandra: real clusters, real workloads, honest numbers.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console()
errors = Console(stderr=True)

# Command groups that live in their own modules; each exposes register(app).
_PLUGINS = (
    "casslab.cli.stress",
    "casslab.cli.metrics",
    "casslab.cli.experiment",
    "casslab.cli.report",
)

NameOption = Annotated[
    str | None, typer.Option("--name", help="Cluster name (default: the current cluster).")
]


def _settings(assignments: list[str]) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for text in assignments:
        key, value = parse_assignment(text)
        settings[key] = value
    return settings


@app.command()
def version() -> None:
    """Print the casslab version."""
    console.print(f"casslab {__version__}")


@app.command()
def doctor(
    cassandra_version: Annotated[
        str, typer.Option("--version", help="Cassandra version to check for.")
    ] = distribution.DEFAULT_VERSION,
) -> None:
    """Check the JDK, Maven, Cassandra cache, memory, disk and ports."""
    checks = run_checks(cassandra_version, clusters_root())
    table = Table("check", "verdict", "detail", "fix")
    colours = {Verdict.OK: "green", Verdict.WARN: "yellow", Verdict.FAIL: "red"}
    for check in checks:
        colour = colours[check.verdict]
        table.add_row(check.name, f"[{colour}]{check.verdict}[/]", check.detail, check.fix)
    console.print(table)
    if any(c.verdict is Verdict.FAIL for c in checks):
        raise typer.Exit(1)


@app.command()
def fetch(
    cassandra_version: Annotated[
        str, typer.Option("--version", help="Cassandra version (X.Y.Z) from Maven Central.")
    ] = distribution.DEFAULT_VERSION,
) -> None:
    """Download a Cassandra version and its dependencies into the cache."""
    dist = distribution.fetch(cassandra_version)
    console.print(f"Cassandra {dist.version}: {dist.lib_dir}")


@app.command()
def up(
    nodes: Annotated[int, typer.Option("--nodes", "-n", help="Number of nodes.")] = 1,
    name: Annotated[str, typer.Option("--name", help="Cluster name.")] = "casslab",
    cassandra_version: Annotated[
        str | None,
        typer.Option("--version", help="Cassandra version (default: newest 5.0.x)."),
    ] = None,
    heap: Annotated[
        str | None, typer.Option("--heap", help="JVM heap per node, e.g. 512M or 1G.")
    ] = None,
    sets: Annotated[
        list[str] | None,
        typer.Option("--set", help="cassandra.yaml setting by its 5.0 name: key=value."),
    ] = None,
    base_address: Annotated[
        str, typer.Option("--base-address", help="Address of node 1; node n gets +n-1.")
    ] = "127.0.0.1",
    jmx_port_base: Annotated[
        int, typer.Option("--jmx-port-base", help="Node n's JMX port is this + n.")
    ] = 7190,
    timeout: Annotated[float, typer.Option("--timeout", help="Start-up limit, seconds.")] = 240,
) -> None:
    """Start a local cluster: node n listens on 127.0.0.n."""
    if nodes < 1:
        raise ConfigError(f"--nodes {nodes}: a cluster needs at least 1 node, e.g. --nodes 3")
    try:
        spec = ClusterSpec(
            name=name,
            nodes=nodes,
            version=cassandra_version,
            heap=heap,
            settings=_settings(sets or []),
            base_address=base_address,
            jmx_port_base=jmx_port_base,
        )
    except ValueError as error:
        raise ConfigError(_pydantic_message(error)) from error
    start = time.monotonic()
    with console.status(f"starting {nodes} node(s)…"):
        cluster = LocalCluster.create(spec, timeout_s=timeout)
    console.print(
        f"cluster [bold]{cluster.name}[/]: {nodes} node(s) of Cassandra "
        f"{cluster.state.cassandra_version}, heap {cluster.state.heap}, ready in "
        f"{time.monotonic() - start:.1f} s; CQL at {', '.join(cluster.contact_points)}"
    )


def _pydantic_message(error: ValueError) -> str:
    from pydantic import ValidationError

    if isinstance(error, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
    return str(error)


@app.command()
def status(name: NameOption = None) -> None:
    """Show every node of the cluster."""
    cluster = LocalCluster.open(name)
    table = Table(
        "node",
        "address",
        "status",
        "pid",
        "jmx",
        "rss MiB",
        "data MiB",
        title=f"cluster {cluster.name} (Cassandra {cluster.state.cassandra_version}, "
        f"heap {cluster.state.heap})",
    )
    colours = {"up": "green", "starting": "yellow", "down": "red"}
    for view in cluster.status():
        table.add_row(
            str(view.number),
            f"{view.address}:{view.native_port}",
            f"[{colours[view.status]}]{view.status}[/]",
            str(view.pid or "-"),
            str(view.jmx_port),
            f"{view.rss_mib:.0f}" if view.rss_mib is not None else "-",
            f"{view.data_mib:.1f}" if view.data_mib is not None else "-",
        )
    console.print(table)
    if cluster.state.settings:
        applied = ", ".join(f"{k}={v}" for k, v in sorted(cluster.state.settings.items()))
        console.print(f"settings: {applied}")


@app.command()
def down(
    name: NameOption = None,
    remove: Annotated[bool, typer.Option("--remove", help="Also delete its directory.")] = False,
) -> None:
    """Stop every node (SIGTERM, then SIGKILL after a deadline)."""
    cluster = LocalCluster.open(name)
    if remove:
        cluster.destroy()
        console.print(f"cluster {cluster.name} stopped and removed")
        return
    killed = cluster.stop()
    note = f" (killed after the deadline: nodes {killed})" if killed else ""
    console.print(f"cluster {cluster.name} stopped{note}")


@app.command()
def restart(
    name: NameOption = None,
    sets: Annotated[
        list[str] | None, typer.Option("--set", help="Changed cassandra.yaml setting key=value.")
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Start-up limit, seconds.")] = 240,
) -> None:
    """Restart every node, applying changed settings."""
    cluster = LocalCluster.open(name)
    start = time.monotonic()
    with console.status("restarting…"):
        cluster.restart(_settings(sets or []), timeout_s=timeout)
    console.print(f"cluster {cluster.name} restarted in {time.monotonic() - start:.1f} s")


@app.command()
def reset(
    name: NameOption = None,
    truncate: Annotated[
        bool, typer.Option("--truncate", help="Truncate tables instead of dropping keyspaces.")
    ] = False,
) -> None:
    """Empty the cluster without a restart: drop user keyspaces and clear snapshots."""
    cluster = LocalCluster.open(name)
    start = time.monotonic()
    keyspaces = cluster.reset("truncate" if truncate else "drop")
    verb = "truncated" if truncate else "dropped"
    listed = ", ".join(keyspaces) or "no user keyspaces"
    console.print(f"{verb} {listed}; snapshots cleared in {time.monotonic() - start:.1f} s")


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def nodetool(
    ctx: typer.Context,
    node: Annotated[int, typer.Argument(help="Node number (1..N).")],
    name: NameOption = None,
) -> None:
    """Run nodetool against node N: casslab nodetool 1 status."""
    cluster = LocalCluster.open(name)
    sys.stdout.write(cluster.nodetool(node, *ctx.args))


@app.command()
def cqlsh(
    node: Annotated[int, typer.Argument(help="Node number.")] = 1,
    name: NameOption = None,
    execute: Annotated[
        str | None, typer.Option("--execute", "-e", help="Run this CQL and exit.")
    ] = None,
) -> None:
    """Open cqlsh on node N (default 1)."""
    cluster = LocalCluster.open(name)
    target = cluster.node(node)
    exe = Path(sys.executable).parent / "cqlsh"
    if not exe.exists():
        found = shutil.which("cqlsh")
        if found is None:
            raise ConfigError("cqlsh is not installed: pip install cqlsh (make setup does)")
        exe = Path(found)
    args = [str(exe), target.address, str(target.native_port)]
    if execute:
        args += ["-e", execute]
    os.execv(args[0], args)


@app.command()
def logs(
    node: Annotated[int, typer.Argument(help="Node number.")] = 1,
    name: NameOption = None,
    lines: Annotated[int, typer.Option("--lines", "-n")] = 40,
) -> None:
    """Print the end of node N's system.log."""
    cluster = LocalCluster.open(name)
    target = cluster.node(node)
    console.print(f"[dim]{target.log_file}[/]")
    sys.stdout.write(tail(target.log_file, lines) + "\n")


def _register_plugins() -> None:
    for module_name in _PLUGINS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name == module_name:
                continue
            raise
        module.register(app)


_register_plugins()


def main() -> None:
    """Entry point: run the app, print ``Error: …`` and exit 1 on a casslab error."""
    try:
        # Outside standalone mode typer *returns* the exit code of typer.Exit (and of
        # Ctrl-C, which it turns into Exit(130)) instead of exiting.
        code = app(standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)
    except CasslabError as error:
        errors.print(f"[bold red]Error:[/] {escape(str(error))}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except KeyboardInterrupt:
        errors.print("[bold red]Interrupted[/]")
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as error:  # click's usage errors arrive here with standalone_mode=False
        from click.exceptions import Abort, ClickException, Exit

        if isinstance(error, Exit):
            sys.exit(error.exit_code)
        if isinstance(error, ClickException):
            error.show()
            sys.exit(error.exit_code)
        if isinstance(error, Abort):
            sys.exit(130)
        raise
