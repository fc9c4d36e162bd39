"""An experiment's measured YCSB command: ``ycsb load|run`` and the workload's own flags,
the measure's flags it does not set itself, then ``-threads`` / ``-target`` (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from casslab.load.command_words import join_words, number_text, split_words

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


def compose_ycsb(workload: str, measure: str, threads: int | None, rate: float | None) -> str:
    """A flag of the workload (``-p operationcount=``) wins over the measure's; a threads
    level sets ``-threads``, a rate level ``-target``."""
    tokens = split_words(workload, "workload")
    if len(tokens) < 2 or tokens[1].lower() not in {"load", "run"}:
        raise ValueError(
            f"workload {workload!r}: a YCSB command starts 'ycsb run' or 'ycsb load' "
            "(e.g. 'ycsb run -P workloada')"
        )
    own = _ycsb_parts(tokens[2:])
    general = _ycsb_parts(split_words(measure, "measure"))
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
    return join_words(out)
