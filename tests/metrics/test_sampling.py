"""The sampling loop with literal sources: gaps, survival, flushing, closing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from casslab.errors import MetricsError
from casslab.metrics.sampling import Recorder, sample_once
from casslab.metrics.source import Gap, Sample, SourceUnavailableError
from casslab.metrics.store import ParquetSink, load, load_gaps, parts_dir


class Counting:
    """Returns one sample per call; fails (as a node down would) on the calls in ``fail``."""

    def __init__(self, node: str, fail: set[int] | None = None, crash: bool = False) -> None:
        self._node = node
        self._fail = fail or set()
        self._crash = crash
        self.calls = 0
        self.closed = False

    @property
    def name(self) -> str:
        return "counting"

    @property
    def node(self) -> str:
        return self._node

    def sample(self, now: float) -> list[Sample]:
        self.calls += 1
        if self.calls in self._fail:
            if self._crash:
                raise ZeroDivisionError("bug in a source")
            raise SourceUnavailableError(f"{self._node} is down")
        return [Sample(now, self._node, "cassandra.sstables", float(self.calls))]

    def close(self) -> None:
        self.closed = True


def test_sample_once_turns_failures_into_gaps() -> None:
    ok, bad, buggy = Counting("a"), Counting("b", {1}), Counting("c", {1}, crash=True)
    samples, gaps = sample_once([ok, bad, buggy], 100.0)
    assert samples == [Sample(100.0, "a", "cassandra.sstables", 1.0)]
    assert gaps[0] == Gap(time=100.0, node="b", source="counting", error="b is down")
    assert gaps[1].node == "c"
    assert "ZeroDivisionError" in gaps[1].error


def test_recorder_keeps_sampling_the_others_during_a_gap(tmp_path: Path) -> None:
    out = tmp_path / "r.parquet"
    a, b = Counting("a"), Counting("b", fail={3, 4, 5})
    with Recorder([a, b], ParquetSink(out), interval_s=0.05, flush_every_s=0.1) as rec:
        deadline = time.monotonic() + 10
        while (a.calls < 10 or b.calls < 10) and time.monotonic() < deadline:
            time.sleep(0.02)
    assert a.closed
    assert b.closed
    assert rec.ticks >= 10
    df = load(out)
    per_node = df.groupby("node").size()
    assert per_node["a"] == a.calls
    assert per_node["b"] == b.calls - 3
    gaps = load_gaps(out)
    assert len(gaps) == 3
    assert set(gaps.node) == {"b"}
    # the gap instants are exactly the instants where b has no row while a has one
    a_times = set(df[df.node == "a"].time)
    b_times = set(df[df.node == "b"].time)
    assert a_times - b_times == set(gaps.time)


def test_recorder_flushes_while_running(tmp_path: Path) -> None:
    out = tmp_path / "f.parquet"
    rec = Recorder([Counting("a")], ParquetSink(out), interval_s=0.02, flush_every_s=0.05)
    rec.start()
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not list(parts_dir(out).glob("samples-*.parquet")):
            time.sleep(0.02)
        assert list(parts_dir(out).glob("samples-*.parquet")), "no part file written while running"
        assert len(load(out)) > 0  # readable mid-recording
    finally:
        rec.stop()
    assert not parts_dir(out).exists()


def test_recorder_interval(tmp_path: Path) -> None:
    src = Counting("a")
    start = time.monotonic()
    with Recorder([src], None, interval_s=0.1):
        time.sleep(1.05)
    elapsed = time.monotonic() - start  # a busy machine wakes this thread late
    # an instant every 0.1 s while it ran, and one at its stop; fewer when the machine is
    # too busy (late instants are skipped), never more
    assert 6 <= src.calls <= elapsed / 0.1 + 2, (src.calls, elapsed)


def test_on_tick_sees_every_instant() -> None:
    seen: list[tuple[int, int]] = []
    with Recorder(
        [Counting("a"), Counting("b", {1})],
        None,
        interval_s=0.05,
        on_tick=lambda t, s, g: seen.append((len(s), len(g))),
    ):
        time.sleep(0.3)
    assert seen[0] == (1, 1)
    assert all(x == (2, 0) for x in seen[1:])


def test_bad_interval_is_refused() -> None:
    with pytest.raises(MetricsError, match="not positive"):
        Recorder([], None, interval_s=0)


def test_add_source_while_running() -> None:
    first, late = Counting("a"), Counting("engine")
    rec = Recorder([first], None, interval_s=0.05)
    with rec:
        time.sleep(0.2)
        rec.add_source(late)
        time.sleep(0.3)
    assert late.calls >= 3
    assert first.calls > late.calls
    assert late.closed


def test_kept_sources_and_a_later_first_instant() -> None:
    src = Counting("a")
    start = time.time() + 0.3
    rec = Recorder([src], None, interval_s=0.05, close_sources=False, first_tick_s=start)
    with rec:
        time.sleep(0.2)
        assert src.calls == 0  # nothing before the first instant
        time.sleep(0.4)
    assert src.calls >= 2
    assert not src.closed  # left open for the next recorder
