"""The loader's checks of the ``claims:`` section against the design (pure).

Each tested claim names a KPI the file reports (``kpis:``), factors of the file and, for each,
one of its levels by the slug the cell ids show (``casslab plan``): ``STCS``, ``mixed-1-3``,
``t2.micro``. A level written as in ``factors:`` is refused with its slug as the fix. Once
the file has no other problem, :func:`claim_cell_problems` checks that each claim's groups
``a`` and ``b`` match at least one pair of cells of the expanded design.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from casslab.analysis.claim_records import Claim, matched_pairs
from casslab.experiment.design.factor_levels import find_level, level_slugs
from casslab.experiment.design.plan_records import Plan
from casslab.experiment.file.experiment_model import Factor
from casslab.experiment.file.file_checks import kpi_problem


def _level_problem(path: str, factor: Factor, level: str, raw: Any) -> str | None:
    slugs = level_slugs(factor)
    if level in slugs:
        return None
    index = find_level(factor, raw)
    if index is not None:
        return f"{path}: write the level by its slug as the cell ids show it: {slugs[index]!r}"
    listed = ", ".join(slugs)
    return f"{path}: {level!r} is not a level of {factor.name} (levels: {listed})"


def _group_problems(
    path: str, levels: Mapping[str, str], raw: Mapping[str, Any], factors: Mapping[str, Factor]
) -> list[str]:
    problems: list[str] = []
    for name, level in levels.items():
        factor = factors.get(name)
        if factor is None:
            known = ", ".join(factors) or "none"
            problems.append(f"{path}.{name}: not a factor of this experiment (factors: {known})")
            continue
        problem = _level_problem(f"{path}.{name}", factor, level, raw.get(name, level))
        if problem is not None:
            problems.append(problem)
    return problems


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def claims_problems(
    data: Mapping[str, Any], claims: Sequence[Claim], kpis: Sequence[str], good: Sequence[Factor]
) -> list[str]:
    """Each claim's KPI, factors and levels (``claims``: the model's, parsed from ``data``)."""
    raw_claims = data.get("claims")
    raws = raw_claims if isinstance(raw_claims, list) else []
    factors = {f.name: f for f in good}
    problems: list[str] = []
    for index, claim in enumerate(claims):
        path = f"claims[{index}]"
        if claim.kpi is not None:
            problem = kpi_problem(claim.kpi)
            if problem is None and claim.kpi not in kpis:
                problem = f"{claim.kpi!r} is not in kpis:; add it there so the runs measure it"
            if problem is not None:
                problems.append(f"{path}.kpi: {problem}")
        if claim.compare is None:
            continue
        raw = raws[index] if index < len(raws) else {}
        compare = _mapping(_mapping(raw).get("compare"))
        for side in ("a", "b"):
            levels = getattr(claim.compare, side)
            given = _mapping(compare.get(side))
            problems += _group_problems(f"{path}.compare.{side}", levels, given, factors)
    return problems


def claim_cell_problems(claims: Sequence[Claim], plan: Plan) -> list[str]:
    """Claims whose groups match no pair of the design's cells."""
    cells = {cell.id: cell.labels for cell in plan.cells}
    problems: list[str] = []
    for index, claim in enumerate(claims):
        if claim.compare is None or matched_pairs(claim, cells):
            continue
        problems.append(
            f"claims[{index}].compare: no cell with {claim.compare.a} has a partner with "
            f"{claim.compare.b} and the same levels of the other factors; check the design "
            "(an ofat design varies one factor at a time: name the baseline's other levels)"
        )
    return problems
