"""Collapsed stacks, JFR JSON, the differential table and the SVG, on literal stacks."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from casslab.errors import AnalysisError
from casslab.report.flame.diff import merged, method_changes, method_shares, path_shares
from casslab.report.flame.stacks import (
    ProfileKind,
    collapsed_text,
    from_jfr_json,
    parse_collapsed,
)
from casslab.report.flame.svg import flame_svg, layout

BASELINE = {
    "Thread.run;Stage.run;Mutation.apply;Memtable.put": 60,
    "Thread.run;Stage.run;Read.execute;SSTable.read": 30,
    "Thread.run;Compaction.run": 10,
}
CELL = {
    "Thread.run;Stage.run;Mutation.apply;Memtable.put": 40,
    "Thread.run;Stage.run;Read.execute;SSTable.read": 20,
    "Thread.run;Compaction.run": 40,
}


def test_collapsed_text_round_trip() -> None:
    text = collapsed_text(BASELINE)
    assert text.splitlines()[0] == "Thread.run;Stage.run;Mutation.apply;Memtable.put 60"
    assert parse_collapsed(text) == BASELINE
    assert parse_collapsed("a;b 1\na;b 2\n\n") == {"a;b": 3}
    with pytest.raises(AnalysisError, match="line 1 'a;b'"):
        parse_collapsed("a;b\n")


def test_inclusive_shares_count_a_recursive_frame_once() -> None:
    shares = method_shares({"a;b;a": 1, "a;c": 3})
    assert shares == {"a": 100.0, "b": 25.0, "c": 75.0}
    assert path_shares({"a;b": 1, "a;c": 3}) == {"a": 100.0, "a;b": 25.0, "a;c": 75.0}


def test_the_frames_whose_share_moved_the_largest_first() -> None:
    changes = method_changes(BASELINE, CELL, min_change_pts=5)
    # compaction 10% -> 40%; the stage 90% -> 60%; mutations 60% -> 40%; reads 30% -> 20%
    assert [(c.frame, round(c.change_pts, 6)) for c in changes] == [
        ("Compaction.run", 30.0),
        ("Stage.run", -30.0),
        ("Memtable.put", -20.0),
        ("Mutation.apply", -20.0),
        ("Read.execute", -10.0),
        ("SSTable.read", -10.0),
    ]
    assert method_changes(BASELINE, BASELINE, min_change_pts=0.01) == []


def _frame(cls: str, method: str) -> dict[str, object]:
    return {"method": {"type": {"name": cls}, "name": method}, "lineNumber": 1}


def test_jfr_json_events_become_root_first_stacks() -> None:
    leaf_first = [
        _frame("org/apache/cassandra/db/Memtable", "put"),
        _frame("java/lang/Thread", "run"),
    ]
    doc = {
        "recording": {
            "events": [
                {"type": "jdk.ExecutionSample", "values": {"stackTrace": {"frames": leaf_first}}},
                {"type": "jdk.ExecutionSample", "values": {"stackTrace": {"frames": leaf_first}}},
                {
                    "type": "jdk.ObjectAllocationSample",
                    "values": {"weight": 4096, "stackTrace": {"frames": leaf_first}},
                },
                {
                    "type": "jdk.ExecutionSample",
                    "values": {"stackTrace": {"truncated": True, "frames": leaf_first[:1]}},
                },
                {"type": "jdk.GarbageCollection", "values": {}},
            ]
        }
    }
    stack = "java.lang.Thread.run;org.apache.cassandra.db.Memtable.put"
    assert from_jfr_json(doc, ProfileKind.CPU) == {
        stack: 2,
        "[truncated];org.apache.cassandra.db.Memtable.put": 1,
    }
    assert from_jfr_json(doc, ProfileKind.ALLOC) == {stack: 4096}
    assert from_jfr_json(doc, ProfileKind.LOCK) == {}
    with pytest.raises(AnalysisError, match="jfr print --json"):
        from_jfr_json({"events": []}, ProfileKind.CPU)


def test_layout_widths_follow_the_weights() -> None:
    boxes = {b.path: b for b in layout(BASELINE)}
    assert boxes["Thread.run"].width == 1.0
    assert boxes["Thread.run;Stage.run"].width == pytest.approx(0.9)
    assert boxes["Thread.run;Compaction.run"].x == 0.0  # children left to right by name
    assert boxes["Thread.run;Stage.run"].x == pytest.approx(0.1)
    assert boxes["Thread.run;Stage.run;Mutation.apply;Memtable.put"].depth == 3
    assert layout({}) == []
    assert "a;tiny" not in {b.path for b in layout({"a;big": 10_000, "a;tiny": 1})}


def test_the_svg_is_self_contained_and_the_diff_is_coloured_by_change() -> None:
    svg = flame_svg(CELL, title="LCS cpu", unit="samples", baseline=BASELINE)
    root = ET.fromstring(svg)  # well-formed XML
    assert root.tag.endswith("svg")
    assert "<script" not in svg
    assert not re.search(r"(href|src)\s*=", svg)
    tips = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]
    compaction = next(t for t in tips if t.startswith("Compaction.run"))
    assert compaction == "Compaction.run: 40 samples, 40.00%, +30.00 points against the baseline"
    # the largest growth is the deepest red, the largest fall the deepest blue, the
    # unchanged root white
    ns = "{http://www.w3.org/2000/svg}"
    fills = {
        (g.find(f"{ns}title").text or "").split(":")[0]: g.find(f"{ns}rect").get("fill")  # type: ignore[union-attr]
        for g in root.iter(f"{ns}g")
    }
    assert fills["Compaction.run"] == "rgb(255,0,0)"
    assert fills["Stage.run"] == "rgb(0,0,255)"
    assert fills["Thread.run"] == "rgb(255,255,255)"
    plain = flame_svg(CELL, title="LCS cpu")
    assert "against the baseline" not in plain


def test_a_cells_profiles_merge_into_one() -> None:
    node1, node2 = {"a;b": 3, "a;c": 1}, {"a;b": 1, "x": 5}
    assert merged([node1, node2]) == {"a;b": 4, "a;c": 1, "x": 5}
    assert merged([]) == {}
    # shares of the merge: what the cell's differential graph is drawn from
    assert method_shares(merged([node1, node2]))["a"] == pytest.approx(50.0)
