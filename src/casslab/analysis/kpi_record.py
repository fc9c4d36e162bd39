"""What one KPI is (:class:`KpiSpec`): its unit, its direction and a one-line help. The
KPIs themselves are :mod:`casslab.analysis.kpi_catalogue`."""

from __future__ import annotations

from enum import StrEnum

from casslab.record import Record


class Direction(StrEnum):
    """Which way a KPI should move for the change to be an improvement."""

    HIGHER_IS_BETTER = "higher_is_better"
    LOWER_IS_BETTER = "lower_is_better"
    NEUTRAL = "neutral"  # not a goal: a change is reported, never called better or worse


class KpiSpec(Record):
    """What one KPI is: its unit, its direction and a one-line help."""

    name: str
    unit: str
    direction: Direction
    help: str
    per_operation: bool = False  # also reported per operation type as "<op>.<name>"
    per_node: bool = False  # also reported per Cassandra node as "node<N>.<name>"
    # a share of a count within a trial: 100 x KPI share_of[0] / KPI share_of[1]
    share_of: tuple[str, str] | None = None


def spec(
    name: str,
    unit: str,
    direction: Direction,
    help_text: str,
    per_op: bool = False,
    per_node: bool = False,
    share_of: tuple[str, str] | None = None,
) -> KpiSpec:
    return KpiSpec(
        name=name,
        unit=unit,
        direction=direction,
        help=help_text,
        per_operation=per_op,
        per_node=per_node,
        share_of=share_of,
    )
