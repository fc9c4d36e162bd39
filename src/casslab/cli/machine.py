"""``casslab doctor`` and ``casslab fetch``: what this machine has for casslab, and the
Cassandra jars it caches. In a module of their own so that the CLI's entry point loads
no cluster code for commands that need none (``report``, ``experiments``, ``--help``)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from casslab.cluster import clusters_root, distribution
from casslab.doctor import Verdict, run_checks

console = Console()


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


def fetch(
    cassandra_version: Annotated[
        str, typer.Option("--version", help="Cassandra version (X.Y.Z) from Maven Central.")
    ] = distribution.DEFAULT_VERSION,
) -> None:
    """Download a Cassandra version and its dependencies into the cache."""
    dist = distribution.fetch(cassandra_version)
    console.print(f"Cassandra {dist.version}: {dist.lib_dir}")


def register(app: typer.Typer) -> None:
    """Add ``doctor`` and ``fetch`` to the casslab app."""
    app.command()(doctor)
    app.command()(fetch)
