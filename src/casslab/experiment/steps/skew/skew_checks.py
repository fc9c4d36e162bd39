"""Checks of clock skew and the ``lww`` probe in an experiment file, before anything
runs: the shape of ``cluster.clock`` and ``lww.<field>`` levels, node numbers against
each trial's nodes, a Cassandra with the pluggable clock, and the probe's KPIs asked for
without the probe (:mod:`casslab.experiment.steps.skew.skew_section`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from casslab.experiment.file.file_record import Level
from casslab.experiment.steps.skew.skew_section import (
    CLOCK_KPIS,
    LWW_KPIS,
    LwwSection,
    clock_offsets,
    probe_problems,
)

FIRST_CLOCK_VERSION = (4, 1)  # org.apache.cassandra.utils.Clock$Global


def skew_level_problems(field: str, level: Level) -> list[str]:
    """Problems of one level of ``cluster.clock`` (``field`` "clock") or ``lww.<field>``."""
    if field == "clock":
        try:
            clock_offsets(level)
        except ValueError as error:
            return [str(error)]
        return []
    try:
        LwwSection.model_validate({field: level})
    except ValidationError as error:
        return [str(e["msg"]).removeprefix("Value error, ") for e in error.errors()]
    return []


def _version(text: str | None) -> tuple[int, int] | None:
    parts = (text or "").split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        return None
    return int(parts[0]), int(parts[1])


def skew_problems(data: Mapping[str, Any], experiment: Any) -> list[str]:
    """Problems across fields of a valid ``experiment`` (None: skipped, its own problems are
    reported): node numbers of every trial's clock offsets and probe, the version, and
    KPIs of the probe or the clock without them."""
    if experiment is None:
        return []
    from casslab.errors import ExperimentError
    from casslab.experiment.design.plan_expansion import expand

    try:
        plan = expand(experiment)
    except ExperimentError:
        return []  # another check names the problem
    problems: list[str] = []
    clocked = any(t.clock for t in plan.trials)
    for trial in plan.trials:
        missing = sorted(n for n in trial.clock if n > trial.nodes)
        if missing:
            listed = ", ".join(map(str, missing))
            problems.append(
                f"cluster.clock: node(s) {listed} do not exist in cell {trial.cell_id}, which "
                f"has {trial.nodes} node(s); name nodes 1-{trial.nodes}"
            )
        if trial.lww is not None:
            problems += [
                f"lww: {p.removeprefix('lww: ')}" for p in probe_problems(trial.lww, trial.nodes)
            ]
    version = _version(experiment.cluster.version)
    if clocked and version is not None and version < FIRST_CLOCK_VERSION:
        problems.append(
            f"cluster.clock: Cassandra {experiment.cluster.version} has no pluggable clock "
            "(Cassandra 4.1 and later): clock skew cannot be injected; use 4.1 or later"
        )
    given = data.get("kpis")
    kpis: list[Any] = given if isinstance(given, list) else []
    has_probe = any(t.lww is not None for t in plan.trials)
    for index, kpi in enumerate(kpis):
        if kpi in LWW_KPIS and not has_probe:
            problems.append(f"kpis[{index}]: {kpi} needs the lww probe: add an lww section")
        if kpi in CLOCK_KPIS and not (has_probe or clocked):
            problems.append(
                f"kpis[{index}]: {kpi} is counted with cluster.clock or the lww probe only"
            )
    return list(dict.fromkeys(problems))
