"""Units casslab reads from people: durations (``500ms``, ``30s``, ``20m``, ``2h``, ``1d``)
and sizes in bytes (``2GiB``, ``512M``).

One parser for every place a duration is typed (cassandra-stress ``duration=``, ``-log
interval=``, experiment files, ``--duration``/``--interval`` options); each caller says in
its own words what it expected.
"""

from __future__ import annotations

import re

from casslab.errors import ConfigError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$", re.IGNORECASE)
SECONDS_PER_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def duration_s(value: object) -> float | None:
    """Seconds in ``value`` (a string with an optional unit, or a number of seconds), or
    None when it is not a duration (malformed, negative, or a boolean)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value >= 0 else None
    if not isinstance(value, str):
        return None
    match = _DURATION.match(value)
    if match is None:
        return None
    return float(match.group(1)) * SECONDS_PER_UNIT[(match.group(2) or "s").lower()]


def offset_ms(value: str) -> float | None:
    """Milliseconds in a signed duration written with its unit (``-500ms``, ``+1.5s``), or
    None when it is not one (no unit: an offset without one is ambiguous)."""
    text = value.strip()
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body[-1].isalpha():
        return None
    seconds = duration_s(body)
    if seconds is None:
        return None
    return -seconds * 1000 if text.startswith("-") else seconds * 1000


_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(GiB|MiB|KiB|G|M|K|GB|MB|KB|B)?\s*$", re.IGNORECASE)
MIB = 1024 * 1024
_FACTORS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024}
_FACTORS |= {"M": MIB, "MB": MIB, "MIB": MIB, "G": 1024 * MIB, "GB": 1024 * MIB}
_FACTORS |= {"GIB": 1024 * MIB}


def parse_bytes(text: str, what: str, example: str) -> int:
    """``2GiB``, ``512M``, ``1.5G`` -> bytes (binary units: G and GB are GiB, as in
    ``docker run --memory``); a :class:`ConfigError` naming ``what`` otherwise."""
    match = _SIZE_RE.match(text)
    if match is None:
        raise ConfigError(f"{what} {text!r}: expected a size like {example}")
    value = float(match.group(1)) * _FACTORS[(match.group(2) or "").upper()]
    if value <= 0:
        raise ConfigError(f"{what} {text!r}: must be more than zero, e.g. {example}")
    return int(value)
