"""An experiment's faults against its measured phase and its cluster (pure): a fault due
after the phase ends would silently never run, and a partition needs a topology's links to
cut; both are refused before anything starts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from casslab.faults.model import Fault, FaultKind
from casslab.units import duration_s

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


def fault_problems(data: Mapping[str, Any], faults: list[Fault]) -> list[str]:
    """``faults[i].at`` past the measured phase; a ``partition`` without a topology."""
    problems: list[str] = []
    phase_s = measured_duration_s(data)
    for index, fault in enumerate(faults):
        if phase_s is not None and fault.at_s >= phase_s:
            problems.append(
                f"faults[{index}].at: {fault.at_s:g} s is at or past the end of the measured "
                f"phase ({phase_s:g} s), so the fault would never run; give an at: below "
                f"{phase_s:g}s or a longer duration="
            )
        if fault.kind is FaultKind.PARTITION and not _may_have_topology(data):
            problems.append(
                f"faults[{index}]: a partition cuts a topology's links, and this experiment "
                "has no topology; add cluster.topology (e.g. dc1:2,dc2:1) or remove the fault"
            )
    return problems
