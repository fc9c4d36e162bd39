"""Progress events the runner emits; the CLI renders them (the library never prints)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from casslab.engine_contract.engine_records import IntervalRecord
from casslab.experiment.design.cluster_setup import ClusterAction
from casslab.experiment.design.plan_records import Trial
from casslab.store.run_records import TrialResult


@dataclass(frozen=True)
class RunStarted:
    total: int
    pending: int


@dataclass(frozen=True)
class TrialStarted:
    trial: Trial
    index: int  # among the pending trials
    count: int


@dataclass(frozen=True)
class ClusterChanged:
    trial: Trial
    action: ClusterAction


@dataclass(frozen=True)
class PhaseStarted:
    trial: Trial
    phase: str  # "preload", "capture", "jvm warm-up", "reset", "restore", "measure"


@dataclass(frozen=True)
class IntervalMeasured:
    trial: Trial
    record: IntervalRecord


@dataclass(frozen=True)
class TrialFinished:
    trial: Trial
    result: TrialResult


@dataclass(frozen=True)
class RunWarning:
    message: str


@dataclass(frozen=True)
class RoundAdded:
    """An adaptive run added a round: the precision it asks for is not reached yet."""

    round_number: int
    total: int  # trials in the plan now
    reason: str  # which cell and KPI are still too wide


@dataclass(frozen=True)
class RunFinished:
    root: Path


Event = (
    RunStarted
    | TrialStarted
    | ClusterChanged
    | PhaseStarted
    | IntervalMeasured
    | TrialFinished
    | RunWarning
    | RoundAdded
    | RunFinished
)

EventSink = Callable[[Event], None]
"""Where the runner sends its events (the CLI's progress view, a list in tests)."""
