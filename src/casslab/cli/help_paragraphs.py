"""Help texts as paragraphs: a command's docstring is wrapped by hand at the source's width,
and Typer's Rich help keeps those line breaks, so at another terminal width sentences broke
in the middle ("... and\\n make it the current one"). Each prose paragraph becomes one line
that Rich wraps to the terminal; a list, an indented block or a paragraph marked ``\\b``
keeps its lines."""

from __future__ import annotations

import inspect
import re
from typing import Any

_KEEP_LINES = re.compile(r"^(\s|[-*•|]\s|\d+[.)]\s|\$ )")


def paragraphs(text: str) -> str:
    """``text`` with the single line breaks inside each prose paragraph made spaces."""
    blocks = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(_reflow(block) for block in blocks)


def _reflow(block: str) -> str:
    lines = block.split("\n")
    if block.startswith("\b") or any(_KEEP_LINES.match(line) for line in lines):
        return block
    return " ".join(line.strip() for line in lines)


def reflow_command(command: Any) -> None:
    """Make the help of ``command`` and, for a group, of every command under it paragraphs
    (Typer and click commands: their ``help`` attribute, and their subcommands')."""
    if isinstance(getattr(command, "help", None), str):
        command.help = paragraphs(command.help)
    for child in (getattr(command, "commands", None) or {}).values():
        reflow_command(child)
