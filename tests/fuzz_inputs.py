"""A seeded, time-bounded fuzz pass: random command lines and documents built from real
pieces and hostile characters, fed to a parser that must either accept or raise a
:class:`~casslab.errors.CasslabError`, never anything else, and never take long."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from casslab.errors import CasslabError

HOSTILE = [
    "'",
    '"',
    ";",
    "(",
    ")",
    "{",
    "}",
    "=",
    ",",
    "..",
    "--",
    "/*",
    "\\",
    "$(id)",
    "`id`",
    "\x00",
    "\n",
    "\t",
    " ",
    "é",
    "\u2013",
    "\U0001f600",
    "*",
    "&a",
    "!!python/object",
    "%",
    "-1",
    "0",
    "1e309",
    "nan",
    "inf",
    "9" * 30,
    "1.5",
    "1k",
    "99b",
    "",
]


def mutate(rng: random.Random, word: str) -> str:
    """``word`` with a hostile piece put in, swapped in or a part cut out."""
    choice = rng.random()
    at = rng.randint(0, len(word))
    piece = rng.choice(HOSTILE)
    if choice < 0.4:
        return word[:at] + piece + word[at:]
    if choice < 0.7:
        return word[:at] + piece + word[at + rng.randint(0, 3) :]
    if choice < 0.85:
        return word[:at]
    return word + word


def words(rng: random.Random, vocabulary: Sequence[str], count: int) -> list[str]:
    out = [rng.choice(vocabulary) for _ in range(count)]
    return [mutate(rng, w) if rng.random() < 0.5 else w for w in out]


def fuzz(
    seed: int,
    budget_s: float,
    make: Callable[[random.Random], object],
    parse: Callable[[object], object],
    *,
    each_s: float = 2.0,
) -> int:
    """Feed ``parse`` inputs from ``make`` for ``budget_s`` seconds; raises AssertionError
    (naming the input) on an exception outside casslab's tree or a slow input. Returns the
    number of inputs tried."""
    rng = random.Random(seed)
    deadline = time.monotonic() + budget_s
    tried = 0
    while time.monotonic() < deadline:
        given = make(rng)
        started = time.monotonic()
        try:
            parse(given)
        except CasslabError:
            pass
        except Exception as error:
            raise AssertionError(f"{type(error).__name__}: {error} for {given!r}") from error
        took = time.monotonic() - started
        assert took < each_s, f"{took:.1f} s for {given!r}"
        tried += 1
    return tried
