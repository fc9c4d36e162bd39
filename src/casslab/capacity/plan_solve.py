"""Solve a :class:`~casslab.capacity.plan_model.Model` with HiGHS through
``scipy.optimize.milp``, to a proven optimum (relative gap 0), within a time limit."""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array

from casslab.capacity.plan_model import Key, Model
from casslab.errors import CasslabError

DEFAULT_TIME_LIMIT_S = 60.0
MIN_SOLVE_S = 0.05
"""HiGHS's time when assembling the matrix took the whole limit: enough to return at once."""


class SolveStatus(enum.Enum):
    """How HiGHS ended."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    TIME_LIMIT = "time_limit"  # with or without a placement (``values``)


@dataclass(frozen=True)
class Solution:
    """The solver's word: its status, the integer values of the variables (None without
    a placement), the objective, the time it took, and (minimising) the best bound HiGHS
    proved on the objective with the relative gap between them."""

    status: SolveStatus
    values: dict[Key, int] | None
    objective: float | None
    time_s: float
    bound: float | None = None
    gap: float | None = None


def _finite(value: object) -> float | None:
    """A solver's number, None when absent or not finite (HiGHS's bound before any)."""
    if not isinstance(value, int | float):
        return None
    number = float(value)
    return number if np.isfinite(number) else None


def solve_model(model: Model, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Solution:
    """HiGHS's optimum of ``model`` (every variable integer), or its proof that there is
    none, or what it had when ``time_limit_s`` ran out (counted from this call: the
    matrix's assembly and the solve)."""
    if time_limit_s <= 0:
        raise ValueError(f"solve_model: time_limit_s must be > 0, got {time_limit_s}")
    started = time.monotonic()  # the matrix's assembly counts against the limit too
    count = len(model.keys)
    constraints = []
    if model.rows:
        data: list[float] = []
        rows: list[int] = []
        columns: list[int] = []
        for number, row in enumerate(model.rows):
            for column, value in row.coefficients.items():
                rows.append(number)
                columns.append(column)
                data.append(value)
        matrix = csr_array((data, (rows, columns)), shape=(len(model.rows), count))
        low = np.array([row.low for row in model.rows])
        high = np.array([row.high for row in model.rows])
        constraints.append(LinearConstraint(matrix, low, high))
    left_s = max(MIN_SOLVE_S, time_limit_s - (time.monotonic() - started))
    result = milp(
        c=np.array(model.objective, dtype=float),
        integrality=np.ones(count),
        bounds=Bounds(np.zeros(count), np.array(model.upper, dtype=float)),
        constraints=constraints,
        options={"time_limit": left_s, "mip_rel_gap": 0.0, "disp": False},
    )
    elapsed = time.monotonic() - started
    values = None
    if result.x is not None:
        values = {key: round(float(v)) for key, v in zip(model.keys, result.x, strict=True)}
    if result.status == 0 and values is not None:
        return Solution(SolveStatus.OPTIMAL, values, float(result.fun), elapsed)
    if result.status == 2:
        return Solution(SolveStatus.INFEASIBLE, None, None, elapsed)
    if result.status == 1:
        objective = float(result.fun) if values is not None else None
        bound = _finite(getattr(result, "mip_dual_bound", None))
        gap = _finite(getattr(result, "mip_gap", None)) if objective is not None else None
        return Solution(SolveStatus.TIME_LIMIT, values, objective, elapsed, bound, gap)
    raise CasslabError(
        f"capacity plan: HiGHS ended with status {result.status} ({result.message}); "
        "the problem file may hold extreme numbers: check its units (ops/s, GiB, W)"
    )
