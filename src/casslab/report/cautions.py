"""What the report says about trials a verdict should not be trusted blindly on (pure).

A verdict compares the trials of two cells; it is weaker when some of them are flagged:
*not steady* (MSER-5 found no steady part, so the trial's KPIs cover a whole measure
phase that includes a transient or a trend) or *failed* (left out, so the cell has fewer
trials than planned). :func:`cell_cautions` names them per cell, :func:`with_cautions`
puts them next to each verdict, :func:`steady_fact` sums them up for the run's facts.
"""

from __future__ import annotations

from collections.abc import Sequence

from casslab.analysis.run_frames import trial_steadiness
from casslab.report.report_document import VerdictRow
from casslab.store.run_data import RunData, TrialData
from casslab.store.run_records import TrialStatus


def steady_fact(run: RunData) -> str:
    """The run fact on steady state: how many finished trials were steady."""
    judged = [
        s
        for t in run.trials
        if t.result.status is TrialStatus.OK and (s := trial_steadiness(t)) is not None
    ]
    if not judged:
        return "not recorded: the KPIs cover the whole measure phase"
    steady = sum(s.steady for s in judged)
    flagged = len(judged) - steady
    return f"MSER-5: {steady} of {len(judged)} trials steady" + (
        f", {flagged} NOT STEADY (see Trials)" if flagged else ""
    )


def _unsteady(trial: TrialData) -> bool:
    steadiness = trial_steadiness(trial)
    return steadiness is not None and not steadiness.steady


def cell_cautions(run: RunData) -> dict[str, str]:
    """Per cell, the trials a verdict on it would rest on that are flagged: not steady
    (finished, but their KPIs cover a phase with no steady part), or failed (left out)."""
    out: dict[str, str] = {}
    for cell in dict.fromkeys(t.result.cell_id for t in run.trials):
        trials = sorted(
            (t for t in run.trials if t.result.cell_id == cell), key=lambda t: t.result.iteration
        )
        ok = [t for t in trials if t.result.status is TrialStatus.OK]
        unsteady = [t.result.trial_id for t in ok if _unsteady(t)]
        failed = [t.result.trial_id for t in trials if t.result.status is not TrialStatus.OK]
        parts = []
        if unsteady:
            parts.append(f"not steady: {', '.join(unsteady)}")
        if failed:
            parts.append(f"failed, left out: {', '.join(failed)}")
        if parts:
            out[cell] = "; ".join(parts)
    return out


def with_cautions(rows: Sequence[VerdictRow], cautions: dict[str, str]) -> list[VerdictRow]:
    """The verdict rows, each naming the flagged trials of its two cells."""
    out = []
    for row in rows:
        cells = dict.fromkeys((row.baseline_cell, row.cell_id))
        caution = "; ".join(cautions[c] for c in cells if c in cautions)
        out.append(row.model_copy(update={"caution": caution}) if caution else row)
    return out
