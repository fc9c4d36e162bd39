"""The hint counters' pure part: one node's answer read, spans across a restart, pending
files for up nodes, and the ``hints`` block of faults.json."""

from __future__ import annotations

from types import SimpleNamespace

from casslab.faults.hints import HintCounts, block, counts_of, pending_for_up
from casslab.metrics.jmx_mbeans import JmxValue

_M = "org.apache.cassandra.metrics"


def test_one_nodes_answer() -> None:
    values = [
        JmxValue(f"{_M}:type=Storage,name=TotalHints", "Count", 412.0),
        JmxValue(f"{_M}:name=HintsSucceeded,type=HintsService", "Count", 400.0),
        JmxValue(f"{_M}:type=HintsService,name=HintsFailed", "Count", 3.0),
        JmxValue(f"{_M}:type=Storage,name=Load", "Count", 9e9),  # not a hint counter
    ]
    assert counts_of(values) == HintCounts(written=412, replayed=400, failed=3, timed_out=0)
    assert counts_of([]) == HintCounts()


def test_a_span_and_a_counter_that_went_back() -> None:
    before = HintCounts(written=10, replayed=5, failed=1, timed_out=0)
    after = HintCounts(written=30, replayed=25, failed=1, timed_out=2)
    assert after.since(before) == HintCounts(written=20, replayed=20, failed=0, timed_out=2)
    restarted = HintCounts(written=0, replayed=7, failed=0, timed_out=0)  # a new JVM
    assert restarted.since(before) == restarted
    assert before.plus(after) == HintCounts(written=40, replayed=30, failed=2, timed_out=2)


def test_pending_files_count_only_for_nodes_that_are_up() -> None:
    rows = [
        SimpleNamespace(status="UP", files=2),
        SimpleNamespace(status="DOWN", files=5),  # its target is still down: cannot replay
        SimpleNamespace(status="UP", files=None),
    ]
    assert pending_for_up(rows) == 2
    assert pending_for_up([]) == 0


def test_the_block_sums_the_nodes() -> None:
    spans = {
        3: HintCounts(written=0, replayed=120),
        1: HintCounts(written=100, replayed=0, timed_out=1),
        2: HintCounts(written=20, replayed=0, failed=2),
    }
    hints = block(spans, unread=[4], finished=True, waited_s=6.04)
    assert (hints.written, hints.replayed, hints.failed, hints.timed_out) == (120, 120, 2, 1)
    assert [n.node for n in hints.nodes] == [1, 2, 3]
    assert hints.nodes[0].written == 100
    assert (hints.finished, hints.waited_s, hints.unread) == (True, 6.0, [4])


def test_the_per_second_metrics_count_hints_too() -> None:
    from casslab.metrics.jmx_mbeans import summarize

    written = JmxValue(f"{_M}:type=Storage,name=TotalHints", "Count", 12.0)
    replayed = JmxValue(f"{_M}:type=HintsService,name=HintsSucceeded", "Count", 9.0)
    both = summarize([written, replayed])
    assert (both["cassandra.hints_written"], both["cassandra.hints_replayed"]) == (12.0, 9.0)
    # HintsService's meters are registered at the node's first delivery: none yet is 0
    assert summarize([written])["cassandra.hints_replayed"] == 0.0
    assert "cassandra.hints_replayed" not in summarize([])
