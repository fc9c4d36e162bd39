"""casslab.load.stress.graph: the -graph page, its embedded data and revisions."""

from __future__ import annotations

from casslab.engine_contract.engine_records import IntervalRecord, LatencyStats, OpStats
from casslab.load.stress.graph import (
    add_revision,
    render_graph_html,
    revision_from_intervals,
    revisions_from_html,
)

LAT = LatencyStats(
    count=100, mean_ms=1.25, p50_ms=1.0, p95_ms=2.5, p99_ms=5.0, p999_ms=9.9, max_ms=12.3
)
TOTAL = OpStats(count=1000, errors=2, op_rate=1000.0, rows=98, response=LAT, service=LAT)


def interval(t_end_s: float) -> IntervalRecord:
    return IntervalRecord(
        t_start_s=t_end_s - 1.0, t_end_s=t_end_s, threads=8, total=TOTAL, ops={"write": TOTAL}
    )


def test_graph_round_trip_and_overlay() -> None:
    first = revision_from_intervals("LeveledCompaction", [interval(1.0), interval(2.0)], "user ...")
    assert first.t_s == [1.0, 2.0]
    assert first.op_rate == [1000.0, 1000.0]
    page = render_graph_html(add_revision(None, "Write </script>", first))
    assert page.startswith("<!DOCTYPE html>")
    assert "<svg" in page
    assert "http" not in page.split("<svg")[0]
    assert "Write &lt;/script&gt;" in page
    stored = revisions_from_html(page)
    assert stored is not None
    assert stored.title == "Write </script>"
    assert stored.revisions == [first]
    second = revision_from_intervals("SizeTieredCompaction", [interval(1.0)])
    both = add_revision(stored, "ignored", second)
    assert [r.revision for r in both.revisions] == ["LeveledCompaction", "SizeTieredCompaction"]
    assert both.title == "Write </script>"
    again = add_revision(both, "x", second.model_copy(update={"op_rate": [5.0]}))
    assert [r.revision for r in again.revisions] == ["LeveledCompaction", "SizeTieredCompaction"]
    assert again.revisions[-1].op_rate == [5.0]
    assert render_graph_html(again).count("<polyline") == 8  # 2 revisions x 4 charts
    assert revisions_from_html("<html>not ours</html>") is None
