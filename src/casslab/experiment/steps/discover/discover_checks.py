"""The loader's checks of the ``discover:`` step and the levels relative to it (pure): see
:mod:`casslab.experiment.steps.discover.discover_section`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from casslab.experiment.file.experiment_model import Factor, FactorKind
from casslab.experiment.steps.discover.discover_section import is_best, rate_share, section_problems


def absolute_levels(factors: Sequence[Factor]) -> tuple[int | None, float | None]:
    """The first absolute ``threads`` and ``rate`` levels (None: no factor, or only
    relative levels): what a check composes a measured command with."""
    threads = next(
        (
            int(level)
            for f in factors
            if f.kind is FactorKind.THREADS
            for level in f.levels
            if not is_best(level)
        ),
        None,
    )
    rate = next(
        (
            float(level)
            for f in factors
            if f.kind is FactorKind.RATE
            for level in f.levels
            if rate_share(level) is None
        ),
        None,
    )
    return threads, rate


def _relative_paths(factors: Sequence[Factor]) -> list[str]:
    out = []
    for factor in factors:
        for index, level in enumerate(factor.levels):
            relative = (factor.kind is FactorKind.RATE and rate_share(level) is not None) or (
                factor.kind is FactorKind.THREADS and is_best(level)
            )
            if relative:
                out.append(f"factors.{factor.name}[{index}] ({level})")
    return out


def discover_problems(data: Mapping[str, Any], factors: Sequence[Factor]) -> list[str]:
    """A relative level without a ``discover:`` section, a section without a relative level,
    and the section's values the model cannot judge (units). ``factors``: those without
    problems of their own."""
    section = data.get("discover")
    relative = _relative_paths(factors)
    if section is None:
        if relative:
            return [
                f"{relative[0]}: a share of capacity or best threads needs a discover: step; "
                "add e.g. discover: {p99: 20ms} (the open-loop search) or discover: {} "
                "(the thread ramp)"
            ]
        return []
    problems: list[str] = []
    if isinstance(section, Mapping):
        problems += section_problems(section)
    if not relative:
        problems.append(
            "discover: no level uses it; give rate levels as shares (rate: [100%, 66%]) or "
            "threads: [best], or remove discover:"
        )
    return problems
