"""The report's "Discovered capacity" section: one row per discover group from the
manifest, the search's bracket or the ramp, an error row in red; none without the step."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from casslab.report import text
from casslab.report.discovered import discovered_section
from casslab.report.report_document import Tone
from casslab.store.layout import RunLayout
from casslab.store.run_data import read_run

RunFactory = Callable[..., Path]  # the make_run fixture (tests/report/conftest.py)


def _discovered(root: Path, found: dict[str, dict[str, object]]) -> None:
    path = RunLayout(root=root).manifest
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["discovered"] = found
    path.write_text(json.dumps(manifest), encoding="utf-8")


def test_each_group_shows_its_capacity_and_how_it_was_found(make_run: RunFactory) -> None:
    root = make_run()
    assert discovered_section(read_run(root)) is None
    _discovered(
        root,
        {
            "workload=read": {
                "group": "workload=read",
                "trial_id": "workload=read,rate=66pct/1",
                "p99_slo_ms": 20.0,
                "search_status": "found",
                "max_rate_per_s": 3220.0,
                "bracket_high_per_s": 3360.0,
                "p99_ms_at_max": 18.4,
                "runs": 11,
                "best_threads": 54,
                "best_op_rate": 4100.5,
                "capacity_per_s": 3220.0,
                "elapsed_s": 95.2,
            },
            "workload=write": {
                "group": "workload=write",
                "trial_id": "workload=write,rate=66pct/1",
                "p99_slo_ms": 20.0,
                "search_status": "none_meets",
                "runs": 6,
                "elapsed_s": 40.0,
                "error": "the discover search ended none_meets: no rate met the SLO",
            },
        },
    )
    section = discovered_section(read_run(root))
    assert section is not None
    (table,) = section.tables
    read, write = table.rows
    assert read.cells[:2] == ["workload=read", "3,220"]
    assert "bracket [3,220, 3,360) ops/s" in read.cells[2]
    assert read.cells[3:5] == ["54", "4,100"]
    assert read.tone is Tone.NEUTRAL
    assert write.cells[1] == text.DASH  # no capacity
    assert write.tone is Tone.BAD
    assert "no rate met the SLO" in write.cells[-1]
