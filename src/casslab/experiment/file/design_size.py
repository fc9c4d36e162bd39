"""The size of an experiment's design, checked before anything expands it (pure): a design
past :data:`MAX_TRIALS` trials is refused with its count and the limit, so ``casslab plan``
stays fast for any design it accepts (``iterations: 1000000000000`` or a factorial of a
million cells would otherwise never finish expanding)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

MAX_TRIALS: Final = 10_000
"""Trials one experiment may plan: at a minute a trial, about a week of runs."""


def _levels(factors: Mapping[str, Any]) -> list[int]:
    return [len(levels) for levels in factors.values() if isinstance(levels, list)]


def _cells(data: Mapping[str, Any]) -> int:
    factors = data.get("factors")
    counts = _levels(factors) if isinstance(factors, Mapping) else []
    if str(data.get("design", "factorial")) == "factorial":
        cells = math.prod(counts) if counts else 1
    else:  # one at a time: the baseline, then each other level of each factor
        cells = 1 + sum(max(count - 1, 0) for count in counts)
    extra = data.get("extra_cells")
    return cells + (len(extra) if isinstance(extra, list) else 0)


def _iterations(data: Mapping[str, Any]) -> int | None:
    value = data.get("iterations", 3)
    if isinstance(value, Mapping):
        value = value.get("max")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None  # the model reports a bad count in its own words
    return value


def design_size_problems(data: Mapping[str, Any]) -> list[str]:
    """``iterations: ...`` past the limit, naming cells, iterations, trials and the limit."""
    iterations = _iterations(data)
    if iterations is None:
        return []
    cells = _cells(data)
    trials = cells * iterations
    if trials <= MAX_TRIALS:
        return []
    return [
        f"iterations: {cells} cell(s) x {iterations} iteration(s) = {trials} trials, past "
        f"casslab's limit of {MAX_TRIALS} trials for one experiment; use fewer levels or "
        "iterations, or split the study into several experiments"
    ]
