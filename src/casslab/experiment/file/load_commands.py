"""Load commands as the experiment composes them: the workload, then the measure options,
then the ``threads`` / ``rate`` factor levels (pure).

A command is read by the front end its first word names (``ycsb run -P workloada``), else
by cassandra-stress (``mixed ratio(write=9,read=1) duration=60s ...``): see
:mod:`casslab.load.front_ends`. Each front end composes its own syntax; see
:func:`compose_command` for which part wins when two set the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping

from casslab.experiment.file.file_record import Record
from casslab.load.front_ends import front_end_for


class Command(Record):
    """A load command as its front end reads it."""

    tool: str  # the name its front end is registered by (casslab.load.front_ends)
    text: str


def measure_mapping(value: object) -> dict[str, str] | None:
    """``value`` as measure options by front end name, or None when it is not a mapping
    of strings to strings (the model reports that)."""
    if not isinstance(value, Mapping):
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return None
    return dict(value)


def measure_for(measure: str | Mapping[str, str], front_end: str) -> str:
    """The measure options that apply to a workload of the front end ``front_end``."""
    if isinstance(measure, Mapping):
        return measure.get(front_end, "")
    return measure


def compose_command(
    workload: str,
    measure: str | Mapping[str, str] = "",
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
    front_end = front_end_for(workload)
    options = measure_for(measure, front_end.name)
    return Command(tool=front_end.name, text=front_end.compose(workload, options, threads, rate))
