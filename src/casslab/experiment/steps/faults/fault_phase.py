"""A trial's faults (the file's ``faults:``) around its measured phase: the timeline the
measure phase starts (:mod:`casslab.faults.timeline`), stopped when the phase ends
(also on an error or Ctrl-C: no node is left down or paused), what happened written to the
trial's ``faults.json`` with each fault's window (:mod:`casslab.faults.windows`) and the
hints the nodes wrote and replayed (:mod:`casslab.faults.hints`), and the trial's fault
KPIs."""

from __future__ import annotations

import json
from collections.abc import Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from casslab.cluster import Cluster
from casslab.experiment.run.trial_phases import TrialClock
from casslab.faults.hints import HintsBlock
from casslab.faults.model import Fault
from casslab.faults.timeline import FaultTimeline
from casslab.faults.windows import fault_kpis, window


def timeline(cluster: Cluster, faults: Sequence[Fault]) -> FaultTimeline | None:
    """The trial's timeline (None without faults); a cluster casslab may not fault
    (an attached one) raises :class:`~casslab.errors.ClusterError`."""
    return FaultTimeline(cluster, faults) if faults else None


@contextmanager
def recorded(
    faults: FaultTimeline | None,
    path: Path,
    clock: TrialClock,
    kpis: MutableMapping[str, float | None],
) -> Iterator[None]:
    """Around the measured phase: stop ``faults`` at its end and write what happened and
    its windows (from ``clock``'s intervals) to ``path`` (the trial's ``faults.json``);
    ``kpis`` gets the fault KPIs."""
    if faults is None:
        yield
        return
    try:
        yield
    finally:
        records = faults.stop()
        windows = [w for w in (window(r, clock.intervals) for r in records) if w is not None]
        kpis.update(fault_kpis(windows))
        kpis.update(hint_kpis(faults.hints))
        document = {
            "faults": [r.model_dump(mode="json") for r in records],
            "windows": [w.model_dump(mode="json") for w in windows],
            "hints": None if faults.hints is None else faults.hints.model_dump(mode="json"),
        }
        path.write_text(json.dumps(document, indent=1) + "\n")


def hint_kpis(hints: HintsBlock | None) -> dict[str, float | None]:
    """The trial's hint KPIs: hints written and replayed, summed over the nodes (None:
    not read)."""
    if hints is None:
        return {}
    return {
        "fault_hints_written": float(hints.written),
        "fault_hints_replayed": float(hints.replayed),
    }
