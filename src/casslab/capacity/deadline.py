"""The one time limit of ``casslab capacity plan``: building the model, solving it and
diagnosing an infeasible problem all count against it (a 1,000-tenant problem spends most
of its time building a model of millions of variables before HiGHS starts)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Deadline:
    """``limit_s`` seconds from its creation, on the monotonic clock."""

    limit_s: float
    started: float = field(default_factory=time.monotonic)

    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    def left_s(self) -> float:
        return self.limit_s - self.elapsed_s()

    def passed(self) -> bool:
        return self.left_s() <= 0


class OutOfTime(Exception):  # noqa: N818 - flow between the capacity modules, never shown
    """The deadline passed while building a model: ``done`` of ``total`` tenants."""

    def __init__(self, done: int, total: int, variables: int) -> None:
        super().__init__(f"{done} of {total} tenants, {variables} variables")
        self.done = done
        self.total = total
        self.variables = variables
