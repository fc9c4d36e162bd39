"""Long-format Parquet: part files, merge at close, crash recovery, gaps."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.errors import MetricsError
from casslab.metrics.source import Gap, Sample
from casslab.metrics.store import ParquetSink, gaps_path, load, load_gaps, parts_dir


def _samples(t: float) -> list[Sample]:
    return [
        Sample(t, "127.0.0.1", "host.cpu_busy_pct", 12.5),
        Sample(t, "127.0.0.1", "cassandra.sstables", 3.0),
        Sample(t, "127.0.0.2", "cassandra.sstables", float("nan")),
    ]


def test_close_merges_parts_into_one_file(tmp_path: Path) -> None:
    out = tmp_path / "m.parquet"
    sink = ParquetSink(out)
    sink.write(_samples(2.0), [])
    sink.write(_samples(1.0), [Gap(time=1.0, node="127.0.0.2", source="cql", error="down")])
    assert len(list(parts_dir(out).iterdir())) == 3
    sink.close()
    assert not parts_dir(out).exists()
    assert out.exists()
    assert gaps_path(out).exists()
    df = load(out)
    assert list(df.columns) == ["time", "node", "metric", "value"]
    assert len(df) == 6
    assert df.time.is_monotonic_increasing
    assert df[df.metric == "host.cpu_busy_pct"].value.tolist() == [12.5, 12.5]
    gaps = load_gaps(out)
    assert gaps.to_dict("records") == [
        {"time": 1.0, "node": "127.0.0.2", "source": "cql", "error": "down"}
    ]


def test_load_reads_parts_left_by_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "crash.parquet"
    sink = ParquetSink(out)
    sink.write(_samples(1.0), [])
    sink.write(_samples(2.0), [])
    # no close(): the process died
    df = load(out)
    assert len(df) == 6
    assert load_gaps(out).empty


def test_a_new_sink_continues_after_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "again.parquet"
    ParquetSink(out).write(_samples(1.0), [])
    sink = ParquetSink(out)
    sink.write(_samples(2.0), [])
    sink.close()
    assert len(load(out)) == 6


def test_numbering_continues_after_gap_only_parts(tmp_path: Path) -> None:
    out = tmp_path / "gaps.parquet"
    first = ParquetSink(out)
    first.write(_samples(1.0), [])
    first.write([], [Gap(time=2.0, node="n", source="cql", error="down")])
    second = ParquetSink(out)  # after a crash
    second.write(_samples(3.0), [Gap(time=3.0, node="n", source="cql", error="still down")])
    second.close()
    assert len(load(out)) == 6
    assert load_gaps(out).error.tolist() == ["down", "still down"]


def test_empty_recording_gives_empty_frames(tmp_path: Path) -> None:
    out = tmp_path / "empty.parquet"
    ParquetSink(out).close()
    assert load(out).empty
    assert load_gaps(out).empty


def test_load_of_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(MetricsError, match="does not exist"):
        load(tmp_path / "nope.parquet")
