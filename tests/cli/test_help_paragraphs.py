"""Help texts read as paragraphs at any width (cli/help_paragraphs.py): every command's
``--help``, rendered at 80 and at 120 columns, breaks no sentence where its docstring
happened to end a line."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from casslab.cli.help_paragraphs import paragraphs
from casslab.cli.main import app


def test_prose_lines_join_lists_and_marked_blocks_keep_theirs() -> None:
    text = """First line
    continues here.

    A paragraph wrapped
    by hand.

    - one item
    - another

    \bkept
    as it is"""
    assert paragraphs(text) == (
        "First line continues here.\n\nA paragraph wrapped by hand.\n\n"
        "- one item\n- another\n\n\bkept\nas it is"
    )


def _paths(command: Any, path: tuple[str, ...], ctx: Any) -> Iterator[tuple[str, ...]]:
    yield path
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            yield from _paths(command.get_command(ctx, name), (*path, name), ctx)


def _all_paths() -> list[tuple[str, ...]]:
    root = typer.main.get_command(app)
    return list(_paths(root, (), root.make_context("casslab", [], resilient_parsing=True)))


def _hard_breaks(text: str, width: int) -> list[str]:
    """Lines of the description (outside the option boxes) that end well short of the
    width, without ending a sentence, and whose next line goes on in lower case."""
    lines = text.splitlines()
    found = []
    for line, following in itertools.pairwise(lines):
        if any(part.startswith(("│", "╭", "╰")) for part in (line.strip(), following.strip())):
            continue
        if not line.strip() or not following.strip():
            continue
        short = len(line.rstrip()) < width - 30
        goes_on = re.match(r"\s*[a-z(]", following) is not None
        if short and goes_on and not line.rstrip().endswith((".", ":", ";")):
            found.append(f"{line.strip()!r} / {following.strip()!r}")
    return found


@pytest.mark.parametrize("width", [80, 120])
def test_every_command_help_is_paragraphs(width: int) -> None:
    runner = CliRunner()
    paths = _all_paths()
    assert len(paths) > 40  # every command of every group, loaded
    broken = {}
    for path in paths:
        done = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(width), "TERM": "dumb"})
        assert done.exit_code == 0, (path, done.output)
        breaks = _hard_breaks(done.output, width)
        if breaks:
            broken[" ".join(path) or "casslab"] = breaks
    assert broken == {}
