"""When a trial's cluster cannot start: may the run go on? (pure)

A cluster that cannot be created or started (its ports are held by another process, the
JDK cannot run its Cassandra version, a node dies at start-up, a setting is refused)
fails every trial that needs a cluster set up the same way. A later trial with another
setup (node count, heap, version, the nodes' isolation and limits, or cassandra.yaml
settings) might get past it, so the run goes on while such a trial is left; when every
trial left needs a setup that has failed, the run stops there instead of failing each of
them, and says why.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from casslab.experiment.design.cluster_setup import ClusterSetup
from casslab.experiment.design.plan_records import Trial


def setup_of(trial: Trial) -> ClusterSetup:
    return trial.setup


def blocked(failed: Collection[ClusterSetup], remaining: Iterable[Trial]) -> bool:
    """True when every remaining trial needs a cluster setup in ``failed`` (one that
    could not start), so no trial left can get past it: the run should stop."""
    return all(setup_of(trial) in failed for trial in remaining)


@dataclass(frozen=True)
class RunStop:
    """Why a run stopped early, and what it leaves."""

    trial_id: str  # the trial whose cluster could not start
    setup: ClusterSetup
    reason: str  # the cluster's error message
    not_attempted: int  # trials left that were not run
    finished: int  # trials of the plan measured so far (this run and earlier ones)
    planned: int
    report: Path | None  # the report written for the finished trials, if any
    resume: str  # the command that continues the run

    def message(self) -> str:
        reason = self.reason.rstrip()
        lines = [f"trial {self.trial_id}: its cluster ({self.setup.describe()}) did not start:"]
        lines += [f"  {line}" for line in reason.splitlines()]
        left = (
            f"the run stopped there: the {self.not_attempted} trial(s) left need a cluster "
            "set up like one that did not start, so none was attempted"
            if self.not_attempted
            else "the run stopped there"
        )
        kept = (
            f"{self.finished} of {self.planned} trial(s) are finished and kept; "
            f"report of them: {self.report}"
            if self.report is not None
            else f"{self.finished} of {self.planned} trial(s) are finished"
            + ("; no report written, as no trial was measured" if not self.finished else "")
        )
        lines.append(f"{left}; {kept}.")
        lines.append(f"Fix the cause above, then continue the run: {self.resume}")
        return "\n".join(lines)
