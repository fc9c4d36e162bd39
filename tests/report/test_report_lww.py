"""The report's "Lost updates" section: each cell's lww probe counts pooled over its
finished trials, with a Wilson interval; no section for a run without the probe."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from casslab.report.build import build_report
from casslab.report.lww import lww_section
from casslab.report.report_document import Tone
from casslab.store.layout import RunLayout
from casslab.store.run_data import read_run

RunFactory = Callable[..., Path]  # the make_run fixture (tests/report/conftest.py)
STCS = "compaction=STCS"
LCS = "compaction=LCS"


def _add_probe(root: Path, cell: str, iteration: int, lost: int, acknowledged: int) -> None:
    path = RunLayout(root=root).trial_summary(cell, iteration)
    summary = json.loads(path.read_text(encoding="utf-8"))
    summary["kpis"] |= {
        "lww_lost": lost,
        "lww_acknowledged": acknowledged,
        "lww_lost_pct": 100 * lost / acknowledged if acknowledged else None,
        "lww_unacknowledged_pct": 100 * (50 - acknowledged) / 50,
        "expired_messages": 50 - acknowledged,
    }
    path.write_text(json.dumps(summary), encoding="utf-8")


def test_each_cell_pools_its_trials(make_run: RunFactory) -> None:
    root = make_run()
    for iteration in (1, 2, 3):
        _add_probe(root, STCS, iteration, 0, 50)
        _add_probe(root, LCS, iteration, 49, 50)
    run = read_run(root)
    section = lww_section(run, [STCS, LCS])
    assert section is not None
    rows = {row.cells[0]: row for row in section.tables[0].rows}
    assert rows[STCS].cells[1:4] == ["3", "0/150 (0.0%)", "0.0% to 2.5%"]
    assert rows[STCS].tone is Tone.GOOD
    assert rows[LCS].cells[2] == "147/150 (98.0%)"  # pooled, not a mean of percentages
    assert rows[LCS].cells[3] == "94.3% to 99.3%"
    assert rows[LCS].tone is Tone.BAD
    assert "lost-updates" in [s.id for s in build_report(run).sections]


def test_no_acknowledged_update_is_said_and_no_probe_means_no_section(
    make_run: RunFactory,
) -> None:
    root = make_run()
    assert lww_section(read_run(root), [STCS, LCS]) is None
    _add_probe(root, STCS, 1, 0, 0)
    section = lww_section(read_run(root), [STCS, LCS])
    assert section is not None
    (row,) = section.tables[0].rows
    assert row.cells[2:] == ["no update acknowledged", "-", "100.0", "50"]
