"""``casslab stress help ...`` and ``casslab stress print dist=...``: cassandra-stress's two
commands that print and start nothing (texts in :mod:`casslab.load.stress.help_text` and
:mod:`casslab.load.stress.dist_print`)."""

from __future__ import annotations

import typer

from casslab.errors import WorkloadSyntaxError
from casslab.load.stress import tokenize
from casslab.load.stress.dist_print import print_lines
from casslab.load.stress.help_text import help_lines


def info_lines(args: list[str]) -> list[str] | None:
    """The lines of ``help``/``print`` when ``args`` is one of them, else None."""
    tokens = tokenize(args) if args else []
    if not tokens or tokens[0].lower() not in ("help", "-?", "print"):
        return None
    if tokens[0].lower() != "print":
        return help_lines(tokens[1:])
    rest = tokens[1:]
    if len(rest) != 1 or not rest[0].lower().startswith("dist="):
        raise WorkloadSyntaxError(
            f"print: write print dist=DIST, e.g. print dist=UNIFORM(1..100), not {' '.join(rest)!r}"
        )
    return print_lines(rest[0][len("dist=") :])


def echo_info(args: list[str]) -> bool:
    """Print ``help``/``print``; True when ``args`` was one of them."""
    lines = info_lines(args)
    if lines is None:
        return False
    for line in lines:
        typer.echo(line)
    return True
