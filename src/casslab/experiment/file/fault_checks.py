"""An experiment's faults against its measured phase and its clusters: a fault due after
the phase ends would silently never run (checked here for every kind), and each kind checks
what it needs of the file's clusters (a partition a topology's links, a slow disk isolated
nodes) through :class:`FileClusters`; all refused before anything starts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from casslab.faults.model import Fault
from casslab.units import duration_s

if TYPE_CHECKING:
    from casslab.experiment.file.experiment_model import Experiment

_DURATION = re.compile(r"(?:^|\s)duration=(\S+)", re.I)


def measured_duration_s(data: Mapping[str, Any]) -> float | None:
    """The measured phase's length from ``workload`` and ``measure`` (``duration=90s``);
    None when the phase ends by a count instead."""
    measure = data.get("measure")
    texts = [data.get("workload")]
    texts += list(measure.values()) if isinstance(measure, Mapping) else [measure]
    found = [
        seconds
        for text in texts
        if isinstance(text, str)
        for match in _DURATION.finditer(text)
        if (seconds := duration_s(match.group(1))) is not None
    ]
    return min(found) if found else None


def _may_have_topology(data: Mapping[str, Any]) -> bool:
    """A topology given or varied, or one the file cannot show: a running cluster it uses
    (``cluster.use``) or an inventory's hosts with their datacenters (``cluster.hosts``),
    whose datacenters the run itself checks when it meets the cluster."""
    cluster = data.get("cluster")
    factors = data.get("factors")
    given = isinstance(cluster, Mapping) and any(
        cluster.get(key) is not None for key in ("topology", "use", "hosts")
    )
    varied = isinstance(factors, Mapping) and "cluster.topology" in factors
    return given or varied


class FileClusters:
    """What the file says of its clusters, as the fault kinds ask it
    (:class:`~casslab.faults.fault_kind.FileFacts`). ``experiment`` None: the file has
    other problems, and its trials are not expanded."""

    def __init__(self, data: Mapping[str, Any], experiment: Experiment | None) -> None:
        self._data = data
        self._experiment = experiment

    @property
    def may_have_topology(self) -> bool:
        return _may_have_topology(self._data)

    def not_isolated(self) -> str | None:
        """Where a trial's nodes are in no casslab cgroup (the isolated backend makes one
        cgroup per node): another machine's nodes, or a trial's plain nodes."""
        from casslab.experiment.design.plan_expansion import expand

        experiment = self._experiment
        if experiment is None:
            return None
        if experiment.cluster.use or experiment.cluster.hosts:
            return "run on another machine's nodes"
        plain = [t.trial_id for t in expand(experiment).trials if not t.setup.isolation_values()]
        return f"trial {plain[0]} has plain nodes" if plain else None


def fault_problems(
    data: Mapping[str, Any], faults: list[Fault], clusters: FileClusters
) -> list[str]:
    """``faults[i].at`` past the measured phase; what each fault's kind refuses of the
    file's clusters (a ``partition`` without a topology, ...)."""
    problems: list[str] = []
    phase_s = measured_duration_s(data)
    for index, fault in enumerate(faults):
        if phase_s is not None and fault.at_s >= phase_s:
            problems.append(
                f"faults[{index}].at: {fault.at_s:g} s is at or past the end of the measured "
                f"phase ({phase_s:g} s), so the fault would never run; give an at: below "
                f"{phase_s:g}s or a longer duration="
            )
        problems += fault.of_kind.file_problems(index, fault, clusters)
    return problems


def after_operations_problems(data: Mapping[str, Any], faults: list[Fault]) -> list[str]:
    """``after_operations`` needs an operation on the timeline (an operation's length is
    not known before it runs; a fault's is its ``for``) and one load engine."""
    if data.get("after_operations") is None:
        return []
    problems = []
    if not any(fault.of_kind.ends_when_done for fault in faults):
        problems.append(
            "after_operations: the timeline has no operation (restart, repair, add-node, "
            "decommission, replace, upgrade, ...); faults last their for:, so give the "
            "measured phase its length with duration= instead, and remove after_operations"
        )
    if data.get("clients") is not None:
        problems.append(
            "after_operations: ends the phase of one load engine; with clients: the "
            "engines run their whole duration= (remove one of them)"
        )
    return problems
