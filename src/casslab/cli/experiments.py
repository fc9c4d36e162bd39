"""``casslab experiments``: the shipped studies (experiment files, tune studies, capacity
problems), a line each, and ``casslab experiments copy NAME`` to edit one of them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

console = Console()
experiments_app = typer.Typer(
    help="The shipped studies: list them, copy one to edit.", invoke_without_command=True
)


@experiments_app.callback()
def show(ctx: typer.Context) -> None:
    """Every shipped experiment file by name, with what it studies."""
    if ctx.invoked_subcommand is not None:
        return
    from casslab import shipped

    folder = shipped.shipped_dir("experiments")
    table = Table("name", "what it is", box=None, pad_edge=False)
    for item in shipped.listing(folder):
        table.add_row(item.name, item.about)
    console.print(table)
    console.print(
        f"({folder}) `casslab experiments copy NAME` writes one here to edit; "
        "`casslab plan FILE` shows its trials, `casslab run FILE` runs it.",
        highlight=False,
    )


@experiments_app.command("copy")
def copy(
    name: Annotated[str, typer.Argument(help="A name `casslab experiments` lists.")],
    to: Annotated[
        Path, typer.Option("--to", help="The directory to write into (made if missing).")
    ] = Path("."),
) -> None:
    """Copy a shipped experiment file (and the profiles it names) into a directory."""
    from casslab import shipped

    written = shipped.copy(shipped.shipped_dir("experiments"), name, to)
    for path in written:
        console.print(f"wrote {path}", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(experiments_app, name="experiments")
