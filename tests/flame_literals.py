"""Literal profiles in a synthetic run directory: a cpu profile of two nodes in every trial
(STCS 80% writing, LCS half compacting) and an alloc profile of node 1 in STCS #1, for the
report's profile tests (tests/report/)."""

from __future__ import annotations

from pathlib import Path

from casslab.report.flame.stacks import collapsed_text
from casslab.report.flame.svg import flame_svg
from casslab.store.layout import RunLayout

STCS = "compaction=STCS"  # the synthetic run's baseline cell
LCS = "compaction=LCS"
WRITE = "Thread.run;Stage.run;Mutation.apply;Memtable.put"
COMPACT = "Thread.run;CompactionTask.run"
# per node and trial: STCS spends 80% writing, 20% compacting; LCS 50% and 50%
STACKS = {STCS: {WRITE: 80, COMPACT: 20}, LCS: {WRITE: 50, COMPACT: 50}}
ALLOC = {WRITE: 4096}


def write_profile(
    run: Path, cell: str, iteration: int, node: int, kind: str, stacks: dict[str, int]
) -> None:
    folder = RunLayout(root=run).profile_dir(cell, iteration)
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"node{node}-{kind}"
    stem.with_suffix(".collapsed").write_text(collapsed_text(stacks), encoding="utf-8")
    stem.with_suffix(".svg").write_text(flame_svg(stacks, title="t"), encoding="utf-8")


def add_profiles(run: Path) -> Path:
    """The synthetic run with a cpu profile of 2 nodes in every trial (the failed LCS #4's
    all compaction, to show it is left out) and an alloc profile of node 1 in STCS #1,
    added to ``run`` (the synthetic run of tests/report/conftest.py)."""
    for cell in (STCS, LCS):
        for iteration in (1, 2, 3):
            for node in (1, 2):
                write_profile(run, cell, iteration, node, "cpu", STACKS[cell])
    write_profile(run, STCS, 1, 1, "alloc", ALLOC)
    write_profile(run, LCS, 4, 1, "cpu", {COMPACT: 1000})
    return run
