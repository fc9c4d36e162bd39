"""The profile files of a report: each cell's collapsed stacks read from its finished
trials (:func:`read_cell_stacks`) and its flame graphs written under the run directory
(:func:`write_graphs`); what they hold is decided in :mod:`.profiles`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from casslab.errors import AnalysisError
from casslab.report.confined import inside
from casslab.report.flame.diff import merged
from casslab.report.flame.stacks import Collapsed, parse_collapsed
from casslab.store.io import atomic_write
from casslab.store.run_data import RunData
from casslab.store.run_records import TrialStatus


def read_cell_stacks(run: RunData) -> tuple[dict[tuple[str, str], Collapsed], list[str]]:
    """(cell, kind) -> the merged stacks of the cell's finished trials; and the profiles
    that could not be read (named, for the report's warnings)."""
    parts: dict[tuple[str, str], list[Collapsed]] = {}
    problems: list[str] = []
    for trial in run.trials:
        if trial.result.status is not TrialStatus.OK:
            continue
        for profile in trial.profiles:
            try:
                stacks = parse_collapsed(profile.stacks_path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, AnalysisError) as error:
                problems.append(
                    f"trial {trial.result.trial_id}: profile {profile.stacks_path.name} "
                    f"cannot be read ({error}); it is left out of the cell's flame graphs"
                )
                continue
            parts.setdefault((trial.result.cell_id, profile.kind), []).append(stacks)
    return {key: merged(found) for key, found in parts.items()}, problems


def write_graphs(root: Path, graphs: Mapping[str, str]) -> list[Path]:
    """Each graph (path relative to ``root`` -> SVG text) written atomically."""
    return [atomic_write(inside(root / name, root), text) for name, text in graphs.items()]
