"""Progress bars the CLI draws on a terminal only: output piped or redirected to a file gets
the plain lines printed through the bar's console, never a bar's frame."""

from __future__ import annotations

from rich.console import Console
from rich.progress import Progress, ProgressColumn


def redraws(console: Console) -> bool:
    """Whether ``console`` writes to a terminal that can redraw a line in place."""
    return console.is_terminal and not console.is_dumb_terminal


def progress_bar(console: Console, *columns: str | ProgressColumn) -> Progress:
    """A Rich progress bar of ``columns`` on ``console``; it draws nothing, not even its
    last frame when it stops, unless ``console`` is a terminal. Lines printed through its
    console are written either way."""
    return Progress(*columns, console=console, disable=not redraws(console))
