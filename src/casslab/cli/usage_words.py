"""The CLI framework's usage errors in casslab's words: typer converts option values with
pydantic, whose "Input should be a valid number, unable to parse string as a number" is
reworded to "expected a number, got 'x'" (the value as typed on the command line)."""

from __future__ import annotations

import re
from collections.abc import Sequence

_PYDANTIC = re.compile(r"Input should be (?:a valid )?(?P<what>[^,]+)(?:,.*)?", re.S)
_ARTICLE = {"number": "a number", "integer": "an integer", "boolean": "true or false"}


def typed_value(opts: Sequence[str], argv: Sequence[str]) -> str | None:
    """The value given on ``argv`` for the option spelt one of ``opts`` (last one wins)."""
    found = None
    for index, word in enumerate(argv):
        for opt in opts:
            if word == opt and index + 1 < len(argv):
                found = argv[index + 1]
            elif word.startswith(opt + "="):
                found = word[len(opt) + 1 :]
    return found


def reworded(message: str, opts: Sequence[str], argv: Sequence[str]) -> str:
    """``message`` in casslab's words when it is pydantic's, else as it is."""
    match = _PYDANTIC.fullmatch(message.strip())
    if match is None:
        return message
    what = match.group("what").strip()
    words = "expected " + _ARTICLE.get(what, what)
    value = typed_value(opts, argv)
    return words + (f", got {value!r}" if value is not None else "")
