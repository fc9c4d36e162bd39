"""Commands loaded when called: ``casslab up`` imports the cluster commands' module and not
the load engine's or the capacity planner's (a command's start-up is paid at every call, and
the test suite alone calls casslab about 400 times).

A command group module keeps its ``register(app)``; the app names which module holds each
top-level command, and the module is imported the first time one of its commands is asked
for (``--help`` of the whole app asks for all of them).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from typing import Protocol, cast

import typer
import typer.core
import typer.main

from casslab.cli.help_paragraphs import reflow_command

_Command = typer.core.TyperCommand | typer.core.TyperGroup


class _GroupModule(Protocol):
    def register(self, app: typer.Typer) -> None: ...


@cache
def module_commands(module: str) -> Mapping[str, object]:
    """The top-level commands ``casslab.cli.<module>`` registers, by name."""
    loaded = cast(_GroupModule, importlib.import_module(f"casslab.cli.{module}"))
    app = typer.Typer()
    loaded.register(app)
    commands = dict(typer.main.get_group(app).commands)
    for command in commands.values():
        reflow_command(command)
    return commands


def lazy_group(commands: Mapping[str, str]) -> type[typer.core.TyperGroup]:
    """A group class whose commands named in ``commands`` (name -> module) load on demand."""

    class LazyGroup(typer.core.TyperGroup):
        def list_commands(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
            eager = super().list_commands(ctx)
            return eager + [name for name in commands if name not in eager]

        def get_command(  # type: ignore[override]
            self, ctx: typer.Context, cmd_name: str
        ) -> _Command | None:
            command = super().get_command(ctx, cmd_name)
            if command is not None:
                reflow_command(command)  # a command of the app itself (version, doctor)
            if command is None and cmd_name in commands:
                loaded = module_commands(commands[cmd_name]).get(cmd_name)
                command = cast(_Command | None, loaded)
                if command is not None:
                    self.add_command(command, cmd_name)
            return cast(_Command | None, command)

    return LazyGroup
