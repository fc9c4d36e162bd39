"""A study's claim as a typed record: what the ``claims:`` section of an experiment file holds.

Each claim quotes one finding of the study the experiment repeats (``says``, ``source``, the
study's own number in ``seed_value``) and says how casslab tests it: two groups of cells
(``compare.a`` and ``compare.b``, each a mapping of factor names to level slugs as the cell
ids show them), a KPI and a ``direction``: ``a`` is ``higher`` or ``lower`` than ``b`` on the
KPI, or ``equal`` to it within a ``size``. A group that names only some factors (``a:
{cluster.isolation: netns}``) compares the two levels of that factor in every combination of
the others: one matched pair of cells each. ``size`` is ``at least N%`` (higher, lower) or
``within N%`` (equal). A claim casslab cannot test names why in ``not_testable`` instead.

The file's part is checked here field by field; its cells and KPI are checked against the
design by :mod:`casslab.experiment.steps.claims.claims_checks`, and judged against a run's
trials by :mod:`casslab.analysis.claim_verdicts`. Light: no SciPy here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator, model_validator

from casslab.record import Record

_SIZE = re.compile(
    r"^\s*(?P<kind>at least|within)\s+(?P<pct>\d+(?:\.\d+)?)\s*%(?P<rest>[a-z ]*)$", re.I
)


class ClaimDirection(StrEnum):
    """How the claim says ``a`` stands against ``b`` on its KPI."""

    HIGHER = "higher"
    LOWER = "lower"
    EQUAL = "equal"


class SizeKind(StrEnum):
    AT_LEAST = "at least"  # higher / lower: the ratio a/b is beyond 1 ± pct
    WITHIN = "within"  # equal: the ratio a/b is inside 1 ± pct


def parse_size(text: str) -> tuple[SizeKind, float]:
    """``"at least 10% higher"`` -> (AT_LEAST, 10.0); ``"within 5%"`` -> (WITHIN, 5.0)."""
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(
            f"size {text!r}: write 'at least N%' (direction higher or lower) or 'within N%' "
            "(direction equal), e.g. 'at least 10% higher'"
        )
    return SizeKind(match["kind"].lower()), float(match["pct"])


class SeedValue(Record):
    """The study's own numbers: ``a`` for the claim's cells ``a``, ``b`` (when the study
    gave it) for ``b``, in ``unit`` (the study's unit, as it wrote it)."""

    a: float
    b: float | None = None
    unit: str = ""

    def effect_pct(self) -> float | None:
        """The study's effect, 100 (a/b - 1), when it gave both numbers."""
        if self.b is None or self.b == 0.0:
            return None
        return 100.0 * (self.a / self.b - 1.0)

    def shown(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        if self.b is None:
            return f"{self.a:g}{unit}"
        return f"{self.a:g} vs {self.b:g}{unit}"


def _level_text(value: Any) -> Any:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value) if isinstance(value, int | float) else value


def _levels(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _level_text(v) for k, v in value.items()}
    return value


class ClaimCompare(Record):
    """Two groups of cells by their levels (factor name -> level slug)."""

    a: dict[str, str] = Field(min_length=1)
    b: dict[str, str] = Field(min_length=1)

    @field_validator("a", "b", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return _levels(value)

    @model_validator(mode="after")
    def _same_factors(self) -> ClaimCompare:
        if set(self.a) != set(self.b):
            raise ValueError(
                f"a names factors {sorted(self.a)} and b {sorted(self.b)}: name the same "
                "factors in both, with the levels that differ"
            )
        if self.a == self.b:
            raise ValueError(f"a and b are the same cells ({self.a}): give b other levels")
        return self


class Claim(Record):
    """One claim of the study (module docstring)."""

    says: str = Field(min_length=1)  # one line quoting the study
    source: str = Field(min_length=1)  # seed file and table or figure
    seed_value: SeedValue | None = None
    compare: ClaimCompare | None = None
    kpi: str | None = None
    direction: ClaimDirection | None = None
    size: str | None = None
    not_testable: str | None = None  # why casslab cannot test it

    @model_validator(mode="after")
    def _testable_or_why_not(self) -> Claim:
        parts = {"compare": self.compare, "kpi": self.kpi, "direction": self.direction}
        if self.not_testable is not None:
            given = [name for name, value in parts.items() if value is not None]
            if given or self.size is not None:
                raise ValueError(
                    f"not_testable with {', '.join(given) or 'size'}: a claim is either "
                    "tested (compare, kpi, direction) or not testable (a reason), not both"
                )
            return self
        missing = [name for name, value in parts.items() if value is None]
        if missing:
            raise ValueError(
                f"missing {', '.join(missing)}: give compare, kpi and direction, or "
                "not_testable: <the reason casslab cannot test it>"
            )
        if self.size is not None:
            kind, _ = parse_size(self.size)
            wanted = (
                SizeKind.WITHIN if self.direction is ClaimDirection.EQUAL else SizeKind.AT_LEAST
            )
            if kind is not wanted:
                raise ValueError(
                    f"size {self.size!r} with direction {self.direction}: use '{wanted.value} N%'"
                )
        elif self.direction is ClaimDirection.EQUAL:
            raise ValueError(
                "direction equal needs a size, e.g. size: within 5% (no experiment shows "
                "two means exactly equal)"
            )
        return self

    def size_pct(self) -> float | None:
        return None if self.size is None else parse_size(self.size)[1]


def matched_pairs(claim: Claim, cells: Mapping[str, Mapping[str, str]]) -> list[tuple[str, str]]:
    """(a cell, b cell) pairs of ``cells`` (cell id -> factor levels): ``a`` matches the
    claim's ``a`` levels, ``b`` its ``b`` levels, and both agree on every other factor."""
    assert claim.compare is not None
    a_spec, b_spec = claim.compare.a, claim.compare.b
    named = set(a_spec)

    def matches(levels: Mapping[str, str], spec: Mapping[str, str]) -> bool:
        return all(levels.get(name) == level for name, level in spec.items())

    def rest(levels: Mapping[str, str]) -> dict[str, str]:
        return {k: v for k, v in levels.items() if k not in named}

    out: list[tuple[str, str]] = []
    for a_id, a_levels in cells.items():
        if not matches(a_levels, a_spec):
            continue
        for b_id, b_levels in cells.items():
            if matches(b_levels, b_spec) and rest(b_levels) == rest(a_levels):
                out.append((a_id, b_id))
    return out
