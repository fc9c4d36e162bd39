"""The settings of a capacity search (:mod:`casslab.capacity.find`) and the parsers of the
values people type for them: ``--p99 20ms``, ``--errors 0`` / ``0.1%``, ``--precision 5%``,
``--min-recall 0.95`` / ``95%``, rates as ``2000`` or ``2000/s``. Pure: text in, typed values or a
:class:`~casslab.errors.ConfigError` naming the value and the fix out."""

from __future__ import annotations

import re
from typing import Final, Literal

from pydantic import Field, model_validator

from casslab.errors import ConfigError
from casslab.record import Record
from casslab.units import duration_s

SCHEMA_VERSION: Final[Literal[1]] = 1
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")
_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:/s)?\s*$")


class FindSettings(Record):
    """What the search looks for and how hard it looks.

    A run passes when its p99 response time (from the intended start) is at most
    ``p99_slo_ms``, at most ``error_share`` of its operations failed, and it completed at
    least ``1 - saturation_tolerance`` of the rate asked; with ``min_recall``, the mean
    recall@k of its ANN queries is at least that share too. The ramp starts at
    ``start_rate_per_s`` and multiplies by ``ramp_factor`` until a run fails (or
    ``max_rate_per_s``); below a first failure it divides by it (down to
    ``min_rate_per_s``); then it bisects (geometric mean) until the bracket's high end is
    within ``precision`` of its low end, and the low end has passed ``repeats`` runs.
    ``max_runs`` bounds the whole search.
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    p99_slo_ms: float = Field(gt=0)
    error_share: float = Field(default=0.0, ge=0, lt=1)
    start_rate_per_s: float = Field(default=1000.0, gt=0)
    min_rate_per_s: float = Field(default=10.0, gt=0)
    max_rate_per_s: float = Field(default=1_000_000.0, gt=0)
    ramp_factor: float = Field(default=2.0, gt=1)
    precision: float = Field(default=0.05, ge=0.01, le=1)
    repeats: int = Field(default=3, ge=1, le=20)
    saturation_tolerance: float = Field(default=0.05, gt=0, lt=1)
    max_runs: int = Field(default=40, ge=1)
    min_recall: float | None = Field(default=None, gt=0, le=1)

    @model_validator(mode="after")
    def _rates(self) -> FindSettings:
        if not self.min_rate_per_s <= self.start_rate_per_s <= self.max_rate_per_s:
            raise ValueError(
                "rates: need --min-rate <= --start-rate <= --max-rate (got "
                f"{self.min_rate_per_s:g}, {self.start_rate_per_s:g}, "
                f"{self.max_rate_per_s:g} ops/s); change the one out of order"
            )
        return self


def parse_slo_ms(text: str, *, option: str = "--p99") -> float:
    """Milliseconds in a latency bound written with its unit (``20ms``, ``0.5s``). A bare
    number is refused: ``20`` could be seconds or milliseconds."""
    stripped = text.strip()
    if stripped and stripped[-1].isdigit():
        raise ConfigError(
            f"{option} {text}: give the unit, e.g. {option} {stripped}ms (or {stripped}s)"
        )
    seconds = duration_s(stripped)
    if seconds is None or seconds <= 0:
        raise ConfigError(f"{option} {text!r}: not a latency; write e.g. {option} 20ms")
    return seconds * 1000.0


def parse_error_share(text: str, *, option: str = "--errors") -> float:
    """The share of operations that may fail: ``0`` (none) or a percentage ``0.1%``."""
    stripped = text.strip()
    if stripped in ("0", "0%", "0.0", "0.0%"):
        return 0.0
    match = _PERCENT.match(stripped)
    if match is None:
        raise ConfigError(
            f"{option} {text}: give 0 (no failed operation) or the share of operations "
            f"that may fail with a %, e.g. {option} 0.1%"
        )
    share = float(match.group(1)) / 100.0
    if share >= 1.0:
        raise ConfigError(f"{option} {text}: the share must be below 100%, e.g. 0.1%")
    return share


def parse_percent(text: str, *, option: str) -> float:
    """A fraction from ``5%``."""
    match = _PERCENT.match(text)
    if match is None:
        raise ConfigError(f"{option} {text}: write a percentage, e.g. {option} 5%")
    return float(match.group(1)) / 100.0


def parse_recall(text: str, *, option: str = "--min-recall") -> float:
    """A recall floor: a share ``0.95`` or a percentage ``95%``, above 0 and at most 1."""
    match = _PERCENT.match(text)
    try:
        value = float(match.group(1)) / 100.0 if match else float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value <= 1.0:
        raise ConfigError(
            f"{option} {text}: give the recall@k a run must reach, a share in (0, 1] or a "
            f"percentage, e.g. {option} 0.95 or {option} 95%"
        )
    return value


def parse_rate_per_s(text: str, *, option: str) -> float:
    """Operations per second from ``2000`` or ``2000/s``."""
    match = _RATE.match(text)
    if match is None or float(match.group(1)) <= 0:
        raise ConfigError(f"{option} {text}: not a rate; write e.g. {option} 2000/s")
    return float(match.group(1))


def settings(**values: object) -> FindSettings:
    """:class:`FindSettings` from already parsed values; an inconsistent combination is a
    :class:`ConfigError` that names it."""
    from pydantic import ValidationError

    try:
        return FindSettings.model_validate(values)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'settings'}: "
            f"{str(e['msg']).removeprefix('Value error, ')}"
            for e in error.errors()
        )
        raise ConfigError(f"capacity find: {problems}") from None
