"""The seam between the search and what measures a configuration: a real trial through the
experiment runner (:mod:`casslab.tune.runner_evaluator`) or, in tests, a synthetic one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from casslab.tune.spec import ParamValue
from casslab.tune.tuning_result import Measurement, Role, ScoredTrial


class Evaluator(Protocol):
    """Measures one configuration; ``label`` names its trial (unique in a run)."""

    def evaluate(self, params: Mapping[str, ParamValue], label: str) -> Measurement: ...


@dataclass(frozen=True)
class Asked:
    """A configuration is about to be measured."""

    role: Role
    label: str
    params: dict[str, ParamValue]
    index: int  # 1-based, within its phase
    count: int | None  # the phase's planned count (None: bounded by time)


@dataclass(frozen=True)
class Told:
    """A configuration was measured and scored."""

    trial: ScoredTrial


@dataclass(frozen=True)
class Note:
    """A line worth showing (a phase starts, a trial is re-asked after an interrupt)."""

    message: str


TuneEvent = Asked | Told | Note
TuneSink = Callable[[TuneEvent], None]
