"""cassandra-stress distribution and number syntax, shared by the command line and profiles.

Accepted distribution forms (names are case-insensitive)::

    FIXED(val)                      always val
    UNIFORM(min..max)               uniform over min..max
    GAUSSIAN(min..max)              mean (min+max)/2, stdev (mean-min)/3
    GAUSSIAN(min..max,stdvrng)      stdev (mean-min)/stdvrng
    GAUSSIAN(min..max,mean,stdev)   explicit mean and stdev  (also GAUSS, NORMAL, NORM)
    EXP(min..max)                   exponential over min..max
    SEQ(min..max)                   min, min+1, ..., max, by cycle number

Numbers accept the stress suffixes ``k``/``m``/``b`` (x1000, x1e6, x1e9): ``UNIFORM(1..10M)``.
"""

from __future__ import annotations

import re

from casslab.engine_contract.workload_spec import DistKind, Distribution
from casslab.errors import WorkloadSyntaxError
from casslab.load.limits import MAX_COUNT, count_problem
from casslab.units import duration_s

DIST_FORMS = (
    "FIXED(n) | UNIFORM(min..max) | GAUSSIAN(min..max[,stdvrng]) | "
    "GAUSSIAN(min..max,mean,stdev) | EXP(min..max) | SEQ(min..max)"
)

_SUFFIX = {"": 1, "k": 1_000, "m": 1_000_000, "b": 1_000_000_000}
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmbKMB]?)\s*$")
_DIST = re.compile(r"^\s*(~?)([A-Za-z]+)\s*\((.*)\)\s*$")
_GAUSS_NAMES = {"gaussian", "gauss", "normal", "norm"}
_DEFAULT_STDVRNG = 3.0


def parse_count(text: str, *, what: str) -> int:
    """A non-negative integer with an optional k/m/b suffix: ``1000000``, ``1M``, ``50k``."""
    match = _NUMBER.match(text)
    if match is None:
        raise WorkloadSyntaxError(
            f"{what}: {text!r} is not a number; use digits with an optional k/m/b suffix, "
            "e.g. 1000000 or 1M"
        )
    digits: str = match.group(1)
    suffix: int = _SUFFIX[match.group(2).lower()]
    whole, _, fraction = digits.partition(".")
    fraction = fraction.rstrip("0")
    if len(whole.lstrip("0")) + len(fraction) > 30:  # far past MAX_COUNT; no huge int
        raise WorkloadSyntaxError(
            f"{what}: {text.strip()[:40]!r} is past casslab's limit of {MAX_COUNT} (10^15); "
            "use a smaller count"
        )
    scale: int = 10 ** len(fraction)
    exact = int(whole + fraction) * suffix  # exact: no float rounding of large counts
    if exact % scale:
        raise WorkloadSyntaxError(f"{what}: {text!r} is not a whole number; use e.g. 1500 or 2M")
    value = exact // scale
    problem = count_problem(value)
    if problem is not None:
        raise WorkloadSyntaxError(f"{what}: {problem}")
    return value


def parse_range(text: str, *, what: str) -> tuple[int, int]:
    """``min..max`` (two or more dots, as stress accepts) with min <= max."""
    parts = re.split(r"\.\.+", text.strip())
    if len(parts) != 2:
        raise WorkloadSyntaxError(
            f"{what}: {text!r} is not a range; write it as min..max, e.g. 1..1M"
        )
    low = parse_count(parts[0], what=what)
    high = parse_count(parts[1], what=what)
    if low > high:
        raise WorkloadSyntaxError(
            f"{what}: range {text!r} has min > max; write the smaller bound first"
        )
    return low, high


def _float(text: str, *, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise WorkloadSyntaxError(f"{what}: {text!r} is not a number") from None


def parse_distribution(text: str, *, what: str) -> Distribution:
    """Parse one stress distribution; a bare number means ``FIXED(number)``."""
    if _NUMBER.match(text):
        value = parse_count(text, what=what)
        return Distribution(kind=DistKind.FIXED, min=value, max=value)
    match = _DIST.match(text)
    if match is None:
        raise WorkloadSyntaxError(f"{what}: {text!r} is not a distribution; accepted: {DIST_FORMS}")
    inverted, name, body = match.group(1), match.group(2).lower(), match.group(3)
    if inverted:
        raise WorkloadSyntaxError(
            f"{what}: inverted distributions ({text!r}) are not supported; drop the '~'"
        )
    args = [a.strip() for a in body.split(",")]
    if name == "fixed":
        if len(args) != 1 or ".." in args[0]:
            raise WorkloadSyntaxError(f"{what}: {text!r}: FIXED takes one value, e.g. FIXED(34)")
        value = parse_count(args[0], what=what)
        return Distribution(kind=DistKind.FIXED, min=value, max=value)
    if name in ("uniform", "exp", "seq"):
        if len(args) != 1:
            raise WorkloadSyntaxError(
                f"{what}: {text!r}: {name.upper()} takes one range, e.g. {name.upper()}(1..1000)"
            )
        low, high = parse_range(args[0], what=what)
        kind = {"uniform": DistKind.UNIFORM, "exp": DistKind.EXP, "seq": DistKind.SEQ}[name]
        return Distribution(kind=kind, min=low, max=high)
    if name in _GAUSS_NAMES:
        if not 1 <= len(args) <= 3:
            raise WorkloadSyntaxError(
                f"{what}: {text!r}: GAUSSIAN takes (min..max), (min..max,stdvrng) "
                "or (min..max,mean,stdev)"
            )
        low, high = parse_range(args[0], what=what)
        mean = (low + high) / 2
        if len(args) == 3:
            mean = _float(args[1], what=what)
            stdev = _float(args[2], what=what)
        else:
            stdvrng = _float(args[1], what=what) if len(args) == 2 else _DEFAULT_STDVRNG
            if stdvrng <= 0:
                raise WorkloadSyntaxError(f"{what}: {text!r}: stdvrng must be > 0")
            stdev = (mean - low) / stdvrng
        return Distribution(kind=DistKind.GAUSSIAN, min=low, max=high, mean=mean, stdev=stdev)
    raise WorkloadSyntaxError(
        f"{what}: distribution {name.upper()!r} in {text!r} is not supported; "
        f"accepted: {DIST_FORMS}"
    )


def parse_ratio_distribution(text: str, *, what: str) -> tuple[Distribution, float]:
    """A stress ratio distribution ``DIST/divisor`` (profile ``select: fixed(1)/1000``)."""
    body, sep, divisor_text = text.rpartition("/")
    if not sep:
        return parse_distribution(text, what=what), 1.0
    divisor = _float(divisor_text, what=what)
    if divisor <= 0:
        raise WorkloadSyntaxError(f"{what}: {text!r}: the divisor must be > 0, e.g. fixed(1)/1000")
    return parse_distribution(body, what=what), divisor


def parse_duration_s(text: str, *, what: str) -> float:
    """``20m``, ``30s``, ``2h``, ``1d``, ``500ms``; a bare number means seconds."""
    seconds = duration_s(text)
    if seconds is None:
        raise WorkloadSyntaxError(
            f"{what}: {text!r} is not a duration; use a number with s, m or h, e.g. 30s, 20m, 1h"
        )
    if seconds <= 0:
        raise WorkloadSyntaxError(f"{what}: {text!r} must be longer than zero")
    return seconds
