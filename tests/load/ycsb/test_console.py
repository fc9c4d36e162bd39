"""casslab.load.ycsb.console: engine records as YCSB prints them."""

from __future__ import annotations

from casslab.load.ycsb import console as render
from summary_literals import READ, SLOW, WRITE, interval, summary


def test_ycsb_summary() -> None:
    ops = {"READ": READ, "UPDATE": WRITE}
    lines = render.ycsb_summary(summary(duration_s=4.0, ops=ops))
    assert lines[:2] == ["[OVERALL], RunTime(ms), 4000", "[OVERALL], Throughput(ops/sec), 250.5"]
    assert lines[2:11] == [
        "[READ], Operations, 102",
        "[READ], AverageLatency(us), 1250.0",
        "[READ], MaxLatency(us), 12300",
        "[READ], 50thPercentileLatency(us), 1000",
        "[READ], 95thPercentileLatency(us), 2500",
        "[READ], 99thPercentileLatency(us), 5000",
        "[READ], 99.9thPercentileLatency(us), 9900",
        "[READ], Return=OK, 100",
        "[READ], Return=ERROR, 2",
    ]
    assert lines[-1] == "[UPDATE], Return=OK, 900"
    slow = render.ycsb_summary(summary(ops={"READ": READ.model_copy(update={"response": SLOW})}))
    assert "[READ], ServiceTime99thPercentileLatency(us), 5000" in slow


def test_ycsb_status_line() -> None:
    record = interval(10.0, ops={"READ": READ})
    assert render.ycsb_status(record, 1234) == (
        "10 sec: 1234 operations; 1000.00 current ops/sec; "
        "[READ: Count=100, Max=12300, Avg=1250.00, 95=2500, 99=5000, 99.9=9900]"
    )
