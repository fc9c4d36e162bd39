"""casslab.load.stress.console: engine records as cassandra-stress prints them."""

from __future__ import annotations

import pytest

from casslab.engine_contract.engine_records import (
    RampStep,
)
from casslab.engine_contract.recall import recall_stats
from casslab.load.stress import console as render
from summary_literals import READ, SLOW, TOTAL, WRITE, interval, summary


def test_header_and_rows_align_like_cassandra_stress() -> None:
    progress = render.advance(render.StressProgress(), interval(1.0))
    header = render.stress_header(["write", "read"])
    rows = render.stress_interval_rows(interval(1.0), progress)
    assert header.startswith("type,      total ops,    op/s,    pk/s,   row/s,    mean,")
    assert header.endswith("max ms,  sum ms,  sdv ms,      mb")
    tail = "     1.2,     1.0,     2.5,     5.0,     9.9,    12.3,    1.0,  0.00000,"
    assert rows == [
        f"READ,            100,     100,     100,      98,{tail}      2,      0,       0,       0,"
        "       0,       0",
        f"WRITE,           900,     900,     900,     900,{tail}      0,      0,       0,       0,"
        "       0,       0",
        f"total,          1000,    1000,    1000,     998,{tail}      2,      0,       0,       0,"
        "       0,       0",
    ]
    commas = [i for i, c in enumerate(header) if c == ","][1:]  # after the label, as stress
    for row in rows:
        assert [i for i, c in enumerate(row) if c == ","][1:] == commas


def test_single_operation_prints_only_total_and_counts_accumulate() -> None:
    progress = render.StressProgress()
    rows: list[str] = []
    for second, rate in ((1.0, 1000.0), (2.0, 1200.0)):
        record = interval(second, TOTAL.model_copy(update={"op_rate": rate}), {"write": WRITE})
        progress = render.advance(progress, record)
        rows += render.stress_interval_rows(record, progress)
    assert [r.split(",")[0] for r in rows] == ["total", "total"]
    assert rows[1].split(",")[1].strip() == "2000"
    assert progress.total_ops == {"write": 1800, "": 2000}
    assert rows[1].split(",")[12].strip() == f"{render.relative_stderr([1000.0, 1200.0]):.5f}"


@pytest.mark.parametrize(
    ("rates", "expected"),
    [([], 0.0), ([5.0], 0.0), ([10.0, 10.0], 0.0), ([1000.0, 1200.0], 100 / 1100)],
)
def test_relative_stderr(rates: list[float], expected: float) -> None:
    assert render.relative_stderr(rates) == pytest.approx(expected)


def test_results_block() -> None:
    lines = render.stress_results(summary(duration_s=83.2))
    assert lines == [
        "Results:",
        "Op rate                   :    1,000 op/s  [READ: 100 op/s, WRITE: 900 op/s]",
        "Partition rate            :    1,000 pk/s  [READ: 100 pk/s, WRITE: 900 pk/s]",
        "Row rate                  :      901 row/s [READ: 1 row/s, WRITE: 900 row/s]",
        "Latency mean              :      1.2 ms [READ: 1.2 ms, WRITE: 1.2 ms]",
        "Latency median            :      1.0 ms [READ: 1.0 ms, WRITE: 1.0 ms]",
        "Latency 95th percentile   :      2.5 ms [READ: 2.5 ms, WRITE: 2.5 ms]",
        "Latency 99th percentile   :      5.0 ms [READ: 5.0 ms, WRITE: 5.0 ms]",
        "Latency 99.9th percentile :      9.9 ms [READ: 9.9 ms, WRITE: 9.9 ms]",
        "Latency max               :     12.3 ms [READ: 12.3 ms, WRITE: 12.3 ms]",
        "Total partitions          :      1,000 [READ: 100, WRITE: 900]",
        "Total errors              :          2 [READ: 2, WRITE: 0]",
        "Total operation time      : 00:01:23",
    ]


def test_results_show_service_time_mismatches_and_not_found_when_present() -> None:
    open_loop = TOTAL.model_copy(update={"response": SLOW, "mismatches": 3, "not_found": 2})
    read = READ.model_copy(update={"response": SLOW, "mismatches": 3})
    lines = render.stress_results(summary(total=open_loop, ops={"read": read}))
    assert "Latency 99.9th percentile :   1010.0 ms [READ: 1010.0 ms]" in lines
    assert "Service 99.9th percentile :      9.9 ms [READ: 9.9 ms]" in lines
    assert "Service mean              :      1.2 ms [READ: 1.2 ms]" in lines
    assert "Validation mismatches     :          3 [READ: 3]" in lines
    assert "Rows not found            :          2 [READ: 2]" in lines


def test_lwt_outcomes_are_shown_per_conditional_operation() -> None:
    lwt = WRITE.model_copy(update={"count": 900, "applied": 850, "not_applied": 50})
    total = TOTAL.model_copy(update={"applied": 850, "not_applied": 50})
    lines = render.stress_results(summary(total=total, ops={"read": READ, "update": lwt}))
    assert lines[-3:] == [
        "LWT applied               :        850 [update: 850]",
        "LWT not applied           :         50 [update: 50]",
        "Total operation time      : 00:00:10",
    ]
    assert not any(line.startswith("LWT") for line in render.stress_results(summary()))


def test_recall_lines_count_judged_and_unjudged_queries() -> None:
    """Search while loading: the recall of the judged queries, and the unjudged apart."""
    recall = recall_stats([0, 0, 1, 3])  # k = 3: one query found 2, three found 3
    assert recall is not None
    ann = READ.model_copy(update={"recall": recall})
    assert render.recall_lines(summary(ops={"ann": ann})) == [
        "Recall@3 ann              :     0.9167 mean, 0.67 p5, 0.67 p1 (4 queries)"
    ]
    loading = ann.model_copy(update={"recall_unjudged": 7})
    assert render.recall_lines(summary(ops={"ann": loading})) == [
        "Recall@3 ann              :     0.9167 mean, 0.67 p5, 0.67 p1 (4 judged, 7 unjudged"
        " queries)"
    ]
    none_judged = READ.model_copy(update={"recall_unjudged": 2})
    assert render.recall_lines(summary(ops={"ann": none_judged})) == [
        "Recall ann                :          - (0 judged, 2 unjudged queries)"
    ]
    assert render.recall_lines(summary()) == []


def test_ramp_lines() -> None:
    steps = [
        RampStep(threads=4, op_rate=1000.0, p99_ms=2.0, errors=0),
        RampStep(threads=8, op_rate=1900.0, p99_ms=3.5, errors=1),
    ]
    assert render.stress_ramp(summary()) == []
    assert render.stress_ramp(summary(ramp=steps, best_threads=8)) == [
        "Thread ramp:",
        " threads,       op/s,   p99 ms,  errors",
        "       4,      1,000,      2.0,       0",
        "       8,      1,900,      3.5,       1",
        "Best thread count         : 8",
    ]


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.4, "00:00:00"), (83.2, "00:01:23"), (3725, "01:02:05")]
)
def test_format_hms(seconds: float, text: str) -> None:
    assert render.format_hms(seconds) == text
