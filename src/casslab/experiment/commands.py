"""Load commands as the experiment composes them: the workload, then the measure options,
then the ``threads`` / ``rate`` factor levels (pure).

A command is cassandra-stress syntax (``mixed ratio(write=9,read=1) duration=60s ...``) or,
when it starts with ``ycsb``, YCSB syntax (``ycsb run -P workloada -threads 32``); see
:func:`compose_command` for which part wins when two set the same thing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from enum import StrEnum

from casslab.experiment.base import Record
from casslab.experiment.model import MeasureByTool


class Tool(StrEnum):
    STRESS = "stress"  # cassandra-stress syntax: "mixed ratio(write=9,read=1) duration=60s ..."
    YCSB = "ycsb"  # "ycsb run -P workloada -p recordcount=10000 -threads 32"


class Command(Record):
    """A load command as the load parsers read it."""

    tool: Tool
    text: str


def tool_of(command: str) -> Tool:
    """YCSB when the command starts with ``ycsb``, else cassandra-stress."""
    first = command.strip().split(maxsplit=1)[:1]
    return Tool.YCSB if first and first[0].lower() == "ycsb" else Tool.STRESS


def _is_option(token: str) -> bool:
    return len(token) > 1 and token[0] == "-" and token[1].isalpha()


def _arg_key(token: str) -> str:
    """``duration=60s`` -> ``duration``; ``ratio(write=9)`` -> ``ratio``; ``threads>=4`` ->
    ``threads``; a bare word is its own key."""
    match = re.match(r"^([A-Za-z_][\w-]*)", token)
    return match.group(1).lower() if match else token


def _join(tokens: Iterable[str]) -> str:
    return " ".join(t if t and not re.search(r"[\s'\"]", t) else shlex.quote(t) for t in tokens)


def _split(text: str, what: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as error:
        raise ValueError(f"{what} {text!r}: {error} (check the quotes)") from error


def _stress_parts(tokens: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    head: list[str] = []
    options: dict[str, list[str]] = {}
    current: list[str] | None = None
    for token in tokens:
        if _is_option(token):
            current = options.setdefault(token.lower(), [])
        elif current is None:
            head.append(token)
        else:
            current.append(token)
    return head, options


def _merge_args(specific: Sequence[str], general: Sequence[str]) -> list[str]:
    """``specific`` args, then those of ``general`` whose key ``specific`` does not set."""
    keys = {_arg_key(arg) for arg in specific}
    return [*specific, *(arg for arg in general if _arg_key(arg) not in keys)]


def _compose_stress(workload: str, measure: str, threads: int | None, rate: float | None) -> str:
    head, options = _stress_parts(_split(workload, "workload"))
    measure_head, measure_options = _stress_parts(_split(measure, "measure"))
    if not head:
        raise ValueError(f"workload {workload!r}: expected a command first (write, mixed, ...)")
    bare = [arg for arg in measure_head if "=" not in arg and "(" not in arg]
    if bare:
        raise ValueError(
            f"measure {measure!r}: holds options only (e.g. 'duration=60s cl=ONE -rate "
            f"threads=32'), but {bare[0]!r} looks like a command; put commands in workload"
        )
    merged_head = [head[0], *_merge_args(head[1:], measure_head)]
    merged: dict[str, list[str]] = {}
    for name, args in measure_options.items():
        merged[name] = options.get(name, args)  # the workload's option replaces it whole
    for name, args in options.items():
        merged.setdefault(name, args)
    if threads is not None or rate is not None:
        rate_args = merged.get("-rate", [])
        drop = {"auto"}
        extra: list[str] = []
        if threads is not None:
            drop.add("threads")
            extra.append(f"threads={threads}")
        if rate is not None:
            drop |= {"fixed", "throttle"}
            extra.append(f"fixed={number_text(rate)}/s")
        merged["-rate"] = [a for a in rate_args if _arg_key(a) not in drop] + extra
    tokens = list(merged_head)
    for name, args in merged.items():
        tokens += [name, *args]
    return _join(tokens)


_YCSB_VALUED = {"-p", "-P", "-threads", "-target", "-db", "-cp", "-l"}


def _ycsb_parts(tokens: Sequence[str]) -> list[tuple[str, str | None]]:
    parts: list[tuple[str, str | None]] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in _YCSB_VALUED and index + 1 < len(tokens):
            parts.append((token, tokens[index + 1]))
            index += 2
        else:
            parts.append((token, None))
            index += 1
    return parts


def _ycsb_key(flag: str, value: str | None) -> str:
    if flag == "-p" and value is not None:
        return "-p " + value.partition("=")[0]
    if flag == "-P":
        return f"-P {value}"
    return flag


def _compose_ycsb(workload: str, measure: str, threads: int | None, rate: float | None) -> str:
    tokens = _split(workload, "workload")
    if len(tokens) < 2 or tokens[1].lower() not in {"load", "run"}:
        raise ValueError(
            f"workload {workload!r}: a YCSB command starts 'ycsb run' or 'ycsb load' "
            "(e.g. 'ycsb run -P workloada')"
        )
    own = _ycsb_parts(tokens[2:])
    general = _ycsb_parts(_split(measure, "measure"))
    keys = {_ycsb_key(f, v) for f, v in own}
    parts = own + [(f, v) for f, v in general if _ycsb_key(f, v) not in keys]
    overrides: list[tuple[str, str | None]] = []
    if threads is not None:
        overrides.append(("-threads", str(threads)))
    if rate is not None:
        overrides.append(("-target", number_text(rate)))
    replaced = {flag for flag, _ in overrides}
    parts = [(f, v) for f, v in parts if f not in replaced] + overrides
    out = tokens[:2]
    for flag, value in parts:
        out += [flag] if value is None else [flag, value]
    return _join(out)


def number_text(value: float) -> str:
    """``2000.0`` -> ``2000``, ``0.5`` -> ``0.5``: a number as a command or a slug writes it."""
    return str(int(value)) if float(value).is_integer() else str(value)


def measure_for(measure: str | MeasureByTool, tool: Tool) -> str:
    """The measure options that apply to a workload of ``tool``."""
    if isinstance(measure, MeasureByTool):
        return measure.ycsb if tool is Tool.YCSB else measure.stress
    return measure


def compose_command(
    workload: str,
    measure: str | MeasureByTool = "",
    threads: int | None = None,
    rate: float | None = None,
) -> Command:
    """The full measured command: the workload, the measure options it does not set itself,
    then the ``threads`` / ``rate`` factor levels, which override both.

    Precedence: a ``key=value`` argument of the workload (``cl=QUORUM``) wins over the same
    key in ``measure``; an option of the workload (``-rate ...``, ``-pop ...``) replaces
    the same option of ``measure`` whole; a threads level then sets ``-rate threads=N``.

    cassandra-stress: ``mixed ratio(write=9,read=1)`` + ``duration=30s -rate threads=16``
    -> ``mixed ratio(write=9,read=1) duration=30s -rate threads=16``; a rate level sets
    ``-rate fixed=<rate>/s`` (open loop). YCSB: ``-threads`` and ``-target``. Raises
    ValueError when a command cannot be split (unbalanced quotes) or has no command word.
    """
    tool = tool_of(workload)
    options = measure_for(measure, tool)
    if tool is Tool.YCSB:
        return Command(tool=tool, text=_compose_ycsb(workload, options, threads, rate))
    return Command(tool=tool, text=_compose_stress(workload, options, threads, rate))
