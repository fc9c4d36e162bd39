"""``casslab workloads [show NAME]``: the catalog of named workloads
(:mod:`casslab.workloads.named`), a line each, or one profile with the commands that load
and run it."""

from __future__ import annotations

from typing import Annotated

import typer

from casslab.workloads.named import catalog, named_workload


def listing() -> None:
    """List the named workloads (use one as profile=@NAME)."""
    entries = catalog()
    width = max((len(e.name) for e in entries), default=0) + 1
    for entry in entries:
        typer.echo(f"@{entry.name:<{width}} {entry.summary}")
    typer.echo("")
    typer.echo(
        "`casslab workloads show NAME` prints a profile and the commands that load and run it;"
    )
    typer.echo("profile=@NAME uses it wherever a profile goes.")


def show(
    name: Annotated[str, typer.Argument(help="A named workload, e.g. timeseries or @timeseries.")],
) -> None:
    """Print a named workload's profile and the commands that load and run it."""
    entry = named_workload(name)
    typer.echo(entry.path.read_text(encoding="utf-8").rstrip("\n"))
    typer.echo("")
    typer.echo(f"# profile file: {entry.path} (copy it to edit it)")
    typer.echo(f"# load: {entry.load_command}")
    typer.echo(f"# run:  {entry.run_command}")


def register(app: typer.Typer) -> None:
    """Add the ``workloads`` command group to the casslab app."""
    group = typer.Typer(
        name="workloads",
        help="The catalog of named workloads: cassandra-stress profiles used as profile=@NAME.",
        invoke_without_command=True,
    )

    @group.callback()
    def _list(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:
            listing()

    group.command("show")(show)
    app.add_typer(group, name="workloads")
