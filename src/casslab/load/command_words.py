"""Words of a load command line, as the front ends compose them (pure): splitting with
quotes, joining back, an argument's key, and a number as a command writes it."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence


def is_option(token: str) -> bool:
    """``-rate``, ``-p``: a dash and a letter."""
    return len(token) > 1 and token[0] == "-" and token[1].isalpha()


def arg_key(token: str) -> str:
    """``duration=60s`` -> ``duration``; ``ratio(write=9)`` -> ``ratio``; ``threads>=4`` ->
    ``threads``; a bare word is its own key."""
    match = re.match(r"^([A-Za-z_][\w-]*)", token)
    return match.group(1).lower() if match else token


def join_words(tokens: Iterable[str]) -> str:
    """Words back into one line, quoting those that need it."""
    return " ".join(t if t and not re.search(r"[\s'\"]", t) else shlex.quote(t) for t in tokens)


def split_words(text: str, what: str) -> list[str]:
    """``text`` as words; a ValueError naming ``what`` when a quote is left open."""
    try:
        return shlex.split(text)
    except ValueError as error:
        raise ValueError(f"{what} {text!r}: {error} (check the quotes)") from error


def merge_args(specific: Sequence[str], general: Sequence[str]) -> list[str]:
    """``specific`` args, then those of ``general`` whose key ``specific`` does not set."""
    keys = {arg_key(arg) for arg in specific}
    return [*specific, *(arg for arg in general if arg_key(arg) not in keys)]


def number_text(value: float) -> str:
    """``2000.0`` -> ``2000``, ``0.5`` -> ``0.5``: a number as a command or a slug writes it."""
    return str(int(value)) if float(value).is_integer() else str(value)


def clean_slug(text: str) -> str:
    """``text`` with every run of characters a directory name should not hold as ``-``."""
    return re.sub(r"[^A-Za-z0-9._+]+", "-", text).strip("-.") or "x"
