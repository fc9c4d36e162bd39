"""The registry of load front ends: the one place a front end is registered, by name.

A command is read by the front end its first word names (``ycsb run -P workloada``), else by
:data:`DEFAULT` (cassandra-stress syntax: ``write n=1000``). Adding a front end is one
folder of :mod:`casslab.load` with an object satisfying
:class:`~casslab.load.front_end.FrontEnd`, and one :func:`register` line below.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from casslab.errors import ConfigError
from casslab.load.front_end import FrontEnd
from casslab.load.stress.front_end import STRESS
from casslab.load.ycsb.front_end import YCSB

DEFAULT = "stress"  # a command without a front end's name is cassandra-stress syntax

FRONT_ENDS: dict[str, FrontEnd] = {}


def register(front_end: FrontEnd) -> None:
    """Make ``front_end`` known by its name (a later one of the same name replaces it)."""
    FRONT_ENDS[front_end.name] = front_end


register(STRESS)
register(YCSB)


def front_end(name: str) -> FrontEnd:
    """The front end registered as ``name``; a :class:`ConfigError` naming the known ones."""
    found = FRONT_ENDS.get(name)
    if found is None:
        close = difflib.get_close_matches(name, list(FRONT_ENDS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        known = ", ".join(sorted(FRONT_ENDS))
        raise ConfigError(f"load front end {name!r} is not known{hint}; known: {known}")
    return found


def name_of(command: str) -> str:
    """The name of the front end that reads ``command``: its first word when a front end
    is registered by it (any case), else :data:`DEFAULT`."""
    first = command.strip().split(maxsplit=1)[:1]
    word = first[0].lower() if first else ""
    return word if word in FRONT_ENDS else DEFAULT


def front_end_for(command: str) -> FrontEnd:
    """The front end that reads ``command`` (see :func:`name_of`)."""
    return front_end(name_of(command))


def split_selector(words: Sequence[str]) -> tuple[FrontEnd, list[str]]:
    """The front end ``words`` select and the words after its name (all of them when the
    first word names no front end: then :data:`DEFAULT` reads them)."""
    rest = list(words)
    if rest and rest[0].lower() in FRONT_ENDS:
        return front_end(rest[0].lower()), rest[1:]
    return front_end(DEFAULT), rest
