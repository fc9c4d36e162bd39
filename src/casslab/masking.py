"""Secrets never printed: the one function that masks them in any text casslab shows.

A secret is the value of a password option: stress ``password=``, ``truststore-password=``,
``keystore-password=``, YCSB ``cassandra.password=``; never ``password-env=`` (a variable's
name is no secret). :func:`mask_secrets` replaces, in a message:

- every value in ``known`` (the secrets the command line or the file held, exactly as
  typed, found by :func:`secrets_in`): a password with spaces, parentheses or quotes is
  masked whole wherever the message quotes it;
- every ``KEY=value`` by ``KEY=*suppressed*``: inside a quoted span (``'user=u
  password=a b(c'``) up to the quote that closes the span, elsewhere up to the next space.

Pure: text in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

MASK: Final = "*suppressed*"
"""What a secret is shown as (the text cassandra-stress itself prints)."""

KEY_PATTERN: Final = r"(?:truststore-|keystore-|cassandra\.)?password="
_KEY = re.compile(KEY_PATTERN, re.I)
_NEXT_OPTION = re.compile(r"\s+[A-Za-z][\w.-]*=")
_PLACEHOLDERS = frozenset({"P", "PW", "P|password-env=VAR", "PASSWORD", "*suppressed*"})
"""Placeholders casslab's own forms print after a key (``password=P``): not secrets."""


def value_end(word: str, start: int) -> int:
    """Where a password typed in one command-line word, starting at ``start``, ends: at the
    next option of the word (`` ssl-protocol=TLS``), else at the word's end, so a password
    may hold spaces, parentheses and quotes."""
    match = _NEXT_OPTION.search(word, start)
    return len(word) if match is None else match.start()


def secrets_in(words: Iterable[str]) -> set[str]:
    """The secrets typed in ``words`` (command-line words, or a command's shell words), as
    :func:`value_end` delimits them."""
    found: set[str] = set()
    for word in words:
        for match in _KEY.finditer(word):
            value = word[match.end() : value_end(word, match.end())]
            if value and value not in _PLACEHOLDERS:
                found.add(value)
    return found


def mask_secrets(text: str, known: Iterable[str] = ()) -> str:
    """``text`` with every known secret and every password option's value masked."""
    for secret in sorted(set(known), key=len, reverse=True):
        if len(secret) >= 2:
            text = text.replace(secret, MASK)
            text = text.replace(repr(secret)[1:-1], MASK)  # as quoted inside a repr
    out: list[str] = []
    position = 0
    for match in _KEY.finditer(text):
        if match.start() < position:
            continue
        end = _value_end(text, match.start(), match.end())
        value = text[match.end() : end]
        out.append(text[position : match.end()])
        out.append(value if value in _PLACEHOLDERS or not value else MASK)
        position = end
    out.append(text[position:])
    return "".join(out)


def _value_end(text: str, key_start: int, value_start: int) -> int:
    """Where the value after a key ends: the quote closing the span the key is in, else the
    next space or quote (the end of the line at the latest)."""
    line_start = text.rfind("\n", 0, key_start) + 1
    line_end = text.find("\n", value_start)
    line_end = len(text) if line_end < 0 else line_end
    before = text[line_start:key_start]
    opener = _open_quote(before)
    if opener is not None:
        close = text.find(opener, value_start, line_end)
        return line_end if close < 0 else close
    match = re.compile(r"[\s'\"]").search(text, value_start, line_end)
    return line_end if match is None else match.start()


def _open_quote(before: str) -> str | None:
    """The quote character of the span still open at the end of ``before``, if any."""
    opener: str | None = None
    for char in before:
        if opener is None and char in "'\"":
            opener = char
        elif char == opener:
            opener = None
    return opener
