"""An experiment's measured cassandra-stress command: the workload, the measure options it
does not set itself, then the ``threads`` / ``rate`` levels (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from casslab.load.command_words import (
    arg_key,
    is_option,
    join_words,
    merge_args,
    number_text,
    split_words,
)


def _stress_parts(tokens: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    head: list[str] = []
    options: dict[str, list[str]] = {}
    current: list[str] | None = None
    for token in tokens:
        if is_option(token):
            current = options.setdefault(token.lower(), [])
        elif current is None:
            head.append(token)
        else:
            current.append(token)
    return head, options


def compose_stress(workload: str, measure: str, threads: int | None, rate: float | None) -> str:
    """A ``key=value`` argument of the workload (``cl=QUORUM``) wins over the same key in
    ``measure``; an option of the workload (``-rate ...``, ``-pop ...``) replaces the same
    option of ``measure`` whole; a threads level then sets ``-rate threads=N``, a rate
    level ``-rate fixed=<rate>/s`` (open loop)."""
    head, options = _stress_parts(split_words(workload, "workload"))
    measure_head, measure_options = _stress_parts(split_words(measure, "measure"))
    if not head:
        raise ValueError(f"workload {workload!r}: expected a command first (write, mixed, ...)")
    bare = [arg for arg in measure_head if "=" not in arg and "(" not in arg]
    if bare:
        raise ValueError(
            f"measure {measure!r}: holds options only (e.g. 'duration=60s cl=ONE -rate "
            f"threads=32'), but {bare[0]!r} looks like a command; put commands in workload"
        )
    merged_head = [head[0], *merge_args(head[1:], measure_head)]
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
        merged["-rate"] = [a for a in rate_args if arg_key(a) not in drop] + extra
    tokens = list(merged_head)
    for name, args in merged.items():
        tokens += [name, *args]
    return join_words(tokens)
