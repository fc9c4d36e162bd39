"""The report's server profiles (pure): links to each profiled trial's flame graphs (per
node, per kind), and per cell its merged flame graph and a differential one against the
baseline cell (:mod:`casslab.report.flame`), with the frames whose share moved most.

A cell's profile of a kind is the collapsed stacks of its finished trials' nodes added
together (:func:`casslab.report.flame.diff.merged`); cells are compared by shares, so cells
of different iteration counts compare fairly. :mod:`.profile_files` reads the stacks and
writes the graphs this module draws (:func:`cell_graphs`), at the paths it links
(:func:`graph_path`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

from casslab.analysis.profile_kind import UNITS, ProfileKind
from casslab.report.flame.diff import method_changes
from casslab.report.flame.svg import flame_svg
from casslab.report.report_document import Section, Table, TableRow, Tone
from casslab.store.run_data import RunData

CellStacks = Mapping[tuple[str, str], Mapping[str, int]]
"""(cell id, profile kind) -> the cell's merged collapsed stacks."""

FLAME_DIR = "flame"  # under the run directory: the cells' graphs
TOP_FRAMES = 8  # frames listed per cell and kind
MIN_CHANGE_PTS = 1.0  # a frame is listed when its share moved by at least this much


def graph_path(cell: str, kind: str, *, diff: bool = False) -> str:
    """Where the cell's merged (or differential) graph lives, relative to the run directory."""
    return f"{FLAME_DIR}/{cell}-{kind}{'-diff' if diff else ''}.svg"


def _unit(kind: str) -> str:
    known = {k.value for k in ProfileKind}
    return UNITS[ProfileKind(kind)] if kind in known else "weight"


def _relative(path: Path, root: Path) -> str:
    try:
        return PurePosixPath(path.relative_to(root)).as_posix()
    except ValueError:  # a profile outside the run directory: link it where it is
        return path.as_posix()


def cell_graphs(stacks: CellStacks, baseline: str | None) -> dict[str, str]:
    """Relative path -> SVG text: every cell's merged graph of each kind, and its
    differential graph against ``baseline`` (the baseline's own none)."""
    out: dict[str, str] = {}
    for (cell, kind), cell_stacks in sorted(stacks.items()):
        unit = _unit(kind)
        out[graph_path(cell, kind)] = flame_svg(
            cell_stacks, title=f"{cell}: {kind} profile, nodes and iterations merged", unit=unit
        )
        base = stacks.get((baseline, kind)) if baseline is not None else None
        if base is None or cell == baseline:
            continue
        out[graph_path(cell, kind, diff=True)] = flame_svg(
            cell_stacks,
            title=f"{cell} against {baseline}: {kind} (red grew, blue shrank)",
            unit=unit,
            baseline=base,
        )
    return out


def _trials_table(run: RunData, kinds: Sequence[str]) -> Table:
    rows: list[TableRow] = []
    for trial in sorted(run.trials, key=lambda t: t.result.order_index):
        for node in sorted({p.node for p in trial.profiles}):
            mine = {p.kind: p for p in trial.profiles if p.node == node}
            cells, links = [trial.result.trial_id, str(node)], ["", ""]
            for kind in kinds:
                profile = mine.get(kind)
                svg = profile.svg_path if profile is not None else None
                cells.append("flame graph" if svg is not None else "-")
                links.append(_relative(svg, run.root) if svg is not None else "")
            rows.append(TableRow(cells=cells, links=links))
    return Table(
        id="profiles-trials",
        title="Flame graphs per trial and node",
        columns=["trial", "node", *kinds],
        rows=rows,
        note="JDK Flight Recorder over the measured phase (not the warm-up); Java frames only",
    )


def _cells_table(
    stacks: CellStacks, cells: Sequence[str], kinds: Sequence[str], baseline: str | None
) -> Table:
    rows: list[TableRow] = []
    for cell in cells:
        for kind in kinds:
            if (cell, kind) not in stacks:
                continue
            weight = sum(stacks[(cell, kind)].values())
            has_diff = cell != baseline and baseline is not None and (baseline, kind) in stacks
            diff = "against the baseline" if has_diff else "baseline" if cell == baseline else "-"
            rows.append(
                TableRow(
                    cells=[cell, kind, f"{weight} {_unit(kind)}", "merged", diff],
                    links=[
                        "",
                        "",
                        "",
                        graph_path(cell, kind),
                        graph_path(cell, kind, diff=True) if has_diff else "",
                    ],
                    tone=Tone.GOOD if cell == baseline else Tone.NEUTRAL,
                )
            )
    return Table(
        id="profiles-cells",
        title="Flame graphs per cell",
        columns=["cell", "kind", "weight", "flame graph", "differential flame graph"],
        rows=rows,
        note=(
            "merged: the cell's finished trials and nodes added together. Differential: the "
            "cell's graph coloured by how each call path's share moved against the baseline "
            "cell's (red grew, blue shrank; the deepest colour is the largest move)"
        ),
    )


def _changes_table(
    stacks: CellStacks, cells: Sequence[str], kinds: Sequence[str], baseline: str
) -> Table:
    rows: list[TableRow] = []
    for kind in kinds:
        base = stacks.get((baseline, kind))
        if base is None:
            continue
        for cell in cells:
            if cell == baseline or (cell, kind) not in stacks:
                continue
            moved = method_changes(base, stacks[(cell, kind)], min_change_pts=MIN_CHANGE_PTS)
            for change in moved[:TOP_FRAMES]:
                rows.append(
                    TableRow(
                        cells=[
                            cell,
                            kind,
                            change.frame,
                            f"{change.baseline_pct:.1f}%",
                            f"{change.cell_pct:.1f}%",
                            f"{change.change_pts:+.1f}",
                        ],
                        tone=Tone.BAD if change.change_pts > 0 else Tone.GOOD,
                    )
                )
    return Table(
        id="profiles-changes",
        title=f"Frames whose share moved most against the baseline cell {baseline}",
        columns=["cell", "kind", "frame", "baseline share", "cell share", "change (points)"],
        rows=rows,
        note=(
            f"inclusive share: the part of the profile's weight on stacks through the frame; "
            f"the {TOP_FRAMES} largest moves of at least {MIN_CHANGE_PTS:g} point per cell "
            "and kind"
        ),
    )


def profile_section(
    run: RunData, cells: Sequence[str], baseline: str | None, stacks: CellStacks | None
) -> Section | None:
    """The Profiles section: per-trial links and, given the cells' ``stacks``, the cells'
    graphs and the frames that moved; None when no trial was profiled."""
    if not any(trial.profiles for trial in run.trials):
        return None
    kinds = sorted({p.kind for trial in run.trials for p in trial.profiles})
    tables = [_trials_table(run, kinds)]
    paragraphs = [
        "Where each node spent its CPU (or allocated, waited on locks, ran): one flame graph "
        "per trial, node and kind; each frame is as wide as its share of the profile."
    ]
    if stacks:
        tables.insert(0, _cells_table(stacks, cells, kinds, baseline))
        if baseline is not None and any((baseline, k) in stacks for k in kinds):
            tables.insert(1, _changes_table(stacks, cells, kinds, baseline))
        else:
            paragraphs.append("The baseline cell has no profile: no differential graph.")
    return Section(id="profiles", title="Profiles", paragraphs=paragraphs, tables=tables)
