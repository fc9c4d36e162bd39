"""The trials a resumed run has finished already: their summaries in the run directory."""

from __future__ import annotations

from casslab.errors import NewerSchemaError, StoreError
from casslab.experiment.design.plan_records import Plan
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialResult, read_trial_result


def read_finished(layout: RunLayout, plan: Plan) -> tuple[dict[str, TrialResult], list[str]]:
    """The trial summaries already in the run directory, by trial id, and a warning for
    each one that cannot be read (a crash or a full disk can cut one short): its trial
    runs again. A summary of a newer casslab raises: never overwrite its trials."""
    results: dict[str, TrialResult] = {}
    unreadable: list[str] = []
    planned = {layout.trial_summary(t.cell_id, t.iteration): t.trial_id for t in plan.trials}
    for path in layout.trial_summaries():
        try:
            result = read_trial_result(path)
        except NewerSchemaError:
            raise
        except StoreError as error:
            fate = (
                "its trial will be run again"
                if path in planned
                else "it is not a trial of this plan; ignored"
            )
            unreadable.append(f"unreadable trial summary {path}: {error.detail}; {fate}")
            continue
        results[result.trial_id] = result
    return results, unreadable
