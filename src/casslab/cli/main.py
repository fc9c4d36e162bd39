"""The ``casslab`` command line: parse, call the library, render. No logic here."""

from __future__ import annotations

import contextlib
import sys
from typing import NoReturn

import typer
from click import exceptions as click_exceptions
from rich.console import Console
from rich.markup import escape

from casslab import __version__
from casslab.cli import crash, interrupt, usage_words
from casslab.cli.lazy import lazy_group
from casslab.errors import CasslabError, UsageError
from casslab.masking import mask_secrets, secrets_in

# Every command group lives in its own module (``casslab.cli.<module>``, with its
# ``register(app)``) and is imported when one of its commands runs: one line per command.
COMMANDS: dict[str, str] = {
    "doctor": "machine",
    "fetch": "machine",
    "up": "cluster",
    "status": "cluster",
    "down": "cluster",
    "restart": "cluster",
    "reset": "cluster",
    "nodetool": "cluster",
    "cqlsh": "cluster",
    "logs": "cluster",
    "attach": "attach",
    "stress": "stress",
    "ycsb": "stress",
    "metrics": "metrics",
    "run": "experiment",
    "plan": "experiment",
    "experiments": "experiments",
    "report": "report",
    "compare": "report",
    "net": "net",
    "clock": "clock",
    "capacity": "capacity",
    "fault": "fault",
    "upgrade": "upgrade",
    "tune": "tune",
    "workloads": "workloads",
}

app = typer.Typer(
    cls=lazy_group(COMMANDS),
    name="casslab",
    help="A performance lab for Apache Cassandra: real clusters, real workloads, honest numbers.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console()
errors = Console(stderr=True)


@app.callback()
def _casslab() -> None:
    """The command group itself (with ``version`` its only command defined here, typer
    would otherwise make the app that one command)."""


@app.command()
def version() -> None:
    """Print the casslab version."""
    console.print(f"casslab {__version__}")


# The CLI framework's own exceptions, from whichever copy of click raises them: typer >= 0.2x
# bundles one (typer._click: its errors derive from typer.TyperException, its Exit and Abort
# are typer's), older typer raises those of the click package.
_FRAMEWORK_EXITS: tuple[type[Exception], ...] = (typer.Exit,)
_FRAMEWORK_ABORTS: tuple[type[Exception], ...] = (typer.Abort,)
_USAGE_ERRORS: tuple[type[Exception], ...] = (typer.TyperException,)
_FRAMEWORK_EXITS += (click_exceptions.Exit,)
_FRAMEWORK_ABORTS += (click_exceptions.Abort,)
_USAGE_ERRORS += (click_exceptions.ClickException,)


def _exit_interrupted(hint: str | None) -> NoReturn:
    with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
        errors.print(f"[bold red]{escape(interrupt.message(hint))}[/]", soft_wrap=True)
    sys.exit(interrupt.exit_status())


def _print_error(text: str, secrets: set[str]) -> None:
    shown = escape(mask_secrets(text, secrets))
    errors.print(f"[bold red]Error:[/] {shown}", highlight=False, soft_wrap=True)


def main() -> None:
    """Entry point: run the app. A casslab error prints ``Error: …`` and exits 1 (2 for a
    :class:`~casslab.errors.UsageError`, an option casslab checks); a usage error of the
    framework prints the usage and exits 2; SIGINT, SIGTERM and SIGHUP run every clean-up, print
    ``Interrupted`` and exit 128 + the signal number. Any other exception is an internal
    error: one line naming the crash report with its stack (:mod:`casslab.cli.crash`), exit
    1. Every password typed on the command line is masked in what is printed."""
    interrupt.install()
    secrets = secrets_in(sys.argv[1:])
    try:
        # Outside standalone mode typer *returns* the exit code of typer.Exit (and of an
        # interrupt, which it turns into Exit(130)) and raises usage errors.
        code = app(prog_name="casslab", standalone_mode=False)
    except interrupt.Interrupted as error:
        _exit_interrupted(error.hint)
    except KeyboardInterrupt:  # outside a command (typer turns those inside into 130)
        _exit_interrupted(None)
    except UsageError as error:  # an option casslab checks: a usage error, like the framework's
        _print_error(str(error), secrets)
        sys.exit(2)
    except CasslabError as error:
        _print_error(str(error), secrets)
        sys.exit(1)
    except _FRAMEWORK_EXITS as error:
        sys.exit(getattr(error, "exit_code", 1))
    except _FRAMEWORK_ABORTS:
        errors.print("Aborted!")
        sys.exit(1)
    except _USAGE_ERRORS as error:
        message = getattr(error, "message", None)
        if isinstance(message, str):  # typer's pydantic words for a value it cannot convert
            opts = getattr(getattr(error, "param", None), "opts", None) or []
            error.message = usage_words.reworded(message, list(opts), sys.argv[1:])  # type: ignore[attr-defined]
        show = getattr(error, "show", None)
        if callable(show):
            show()  # "Usage: …", "Try 'casslab … --help' for help." and "Error: …"
        else:
            _print_error(str(error), secrets)
        sys.exit(getattr(error, "exit_code", 2))
    except Exception as error:  # noqa: BLE001 (the last line of defence: no traceback)
        report = crash.write_report(error, sys.argv, secrets)
        _print_error(crash.message(error, report, secrets), secrets)
        sys.exit(1)
    if isinstance(code, int) and code != 0:
        if interrupt.received() is not None:
            _exit_interrupted(None)
        sys.exit(code)
