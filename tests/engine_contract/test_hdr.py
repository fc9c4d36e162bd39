"""The HdrHistogram interval-log reader, on real engine output and on hand-encoded histograms.

``data/lcs1-first6.hlog`` is the first 6 measured intervals of a real trial's
``latency.hlog`` (the quick-compaction demo, trial compaction=LCS/1: write and read, response
and service lines); ``data/lcs1-first6.jsonl`` the engine's interval records of the same
intervals, whose latency figures the engine computed from the same histograms. When the
demo's run directory exists, every trial's whole log is also checked against the engine
summary.
"""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path

import pytest

from casslab.engine_contract.engine_records import IntervalRecord, LatencyStats, SummaryRecord
from casslab.engine_contract.hdr import (
    Histogram,
    decode_histogram,
    latency_stats,
    merge,
    parse_interval_log,
    response_tags,
    select,
)
from casslab.errors import AnalysisError
from hdr_literals import ENGINE_DIGITS, ENGINE_HIGH_NS, ENGINE_LOW_NS, encode

DATA = Path(__file__).parent / "data"
DEMO_RUN = Path(__file__).resolve().parents[2] / "results" / "quick-compaction" / "20261123T214642Z"


def _stats_equal(ours: LatencyStats, engine: LatencyStats) -> None:
    assert ours.count == engine.count
    for field in ("p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms"):
        assert getattr(ours, field) == getattr(engine, field), field  # to the nanosecond
    assert ours.mean_ms == pytest.approx(engine.mean_ms, rel=1e-12)


# ---------------------------------------------------------------- hand-encoded histograms


def test_the_counts_array_round_trips_zero_runs_and_long_varints() -> None:
    entries = {0: 1, 1: 0, 5: 2**56 + 3, 1024: 7, 5000: 1}  # a 9-byte varint, long runs
    for compress in (True, False):
        histogram = decode_histogram(encode(entries, compress=compress))

        assert histogram.counts == {i: c for i, c in entries.items() if c}
        assert (histogram.lowest_discernible, histogram.significant_digits) == (1_000, 3)


@pytest.mark.parametrize(
    ("index", "lowest", "range_"),
    [
        # unit 2^9 = 512 (lowest 1 us); 2048 sub-buckets, the lower half of bucket 0 first
        (0, 0, 512),
        (1, 512, 512),
        (2047, 2047 * 512, 512),
        (2048, 2048 * 512, 1024),  # bucket 1 holds its top half at twice the width
        (3072, 2048 * 1024, 2048),
    ],
)
def test_bucket_values_follow_the_layout(index: int, lowest: int, range_: int) -> None:
    histogram = Histogram(lowest_discernible=1_000, highest_trackable=2**40, significant_digits=3)

    assert histogram.value_at_index(index) == lowest
    assert histogram.equivalent_range(index) == range_
    assert histogram.highest_equivalent(index) == lowest + range_ - 1
    assert histogram.median_equivalent(index) == lowest + range_ // 2


@pytest.mark.parametrize(
    ("quantile", "value"),
    [
        # 10 values in bucket 1 (512..1023), 80 in bucket 1000, 10 in bucket 2000
        (0.0, 512),  # quantile 0: the lowest equivalent of the first bucket
        (0.05, 1023),
        (0.10, 1023),  # count at quantile 10: the 10th value is still in bucket 1
        (0.11, 1000 * 512 + 511),
        (0.90, 1000 * 512 + 511),
        (0.91, 2000 * 512 + 511),
        (1.0, 2000 * 512 + 511),
    ],
)
def test_value_at_quantile_as_the_crate(quantile: float, value: int) -> None:
    histogram = decode_histogram(encode({1: 10, 1000: 80, 2000: 10}))

    assert histogram.value_at_quantile(quantile) == value
    assert histogram.max_value == 2000 * 512 + 511
    assert histogram.mean_value == pytest.approx(
        (10 * 768 + 80 * (1000 * 512 + 256) + 10 * (2000 * 512 + 256)) / 100
    )


def test_merging_adds_counts_and_refuses_other_layouts() -> None:
    a = decode_histogram(encode({1: 10, 1000: 80}))
    b = decode_histogram(encode({1000: 20, 2000: 10}))

    merged = merge([a, b])

    assert merged is not None
    assert merged.counts == {1: 10, 1000: 100, 2000: 10}
    assert merge([]) is None
    other = decode_histogram(encode({1: 1}, digits=2))
    with pytest.raises(AnalysisError, match="layouts differ"):
        merge([a, other])


@pytest.mark.parametrize(
    ("encoded", "message"),
    [
        ("not base64!", "not base64"),
        (base64.b64encode(b"\x1c\x84\x93\x13").decode(), "too short"),
        (base64.b64encode(struct.pack(">II", 0x1C849301, 0) + b"x" * 40).decode(), "not a V2"),
        (base64.b64encode(struct.pack(">II", 0x1C849314, 4) + b"junk").decode(), "corrupt"),
        (
            base64.b64encode(
                struct.pack(">IIIIqqd", 0x1C849313, 1, 7, 3, 1000, 2**40, 1.0) + b"\x02"
            ).decode(),
            "normalising index offset 7",
        ),
        (
            base64.b64encode(
                struct.pack(">IIIIqqd", 0x1C849313, 9, 0, 3, 1000, 2**40, 1.0) + b"\x02"
            ).decode(),
            "truncated",
        ),
        (
            base64.b64encode(
                struct.pack(">IIIIqqd", 0x1C849313, 1, 0, 3, 1000, 2**40, 1.0) + b"\x82"
            ).decode(),
            "inside a varint",
        ),
    ],
)
def test_bad_histograms_are_analysis_errors(encoded: str, message: str) -> None:
    with pytest.raises(AnalysisError, match=message):
        decode_histogram(encoded)


def test_a_log_cut_inside_its_last_line_keeps_the_lines_before() -> None:
    text = (DATA / "lcs1-first6.hlog").read_text()

    log = parse_interval_log(text[:-200])

    assert len(log.intervals) == 23
    broken = text.replace("Tag=read,7.138", "Tag=read,seven", 1)
    with pytest.raises(AnalysisError, match=r"line \d+: could not convert"):
        parse_interval_log(broken)


# ---------------------------------------------------------------- real engine output


def _real() -> tuple[str, list[IntervalRecord]]:
    text = (DATA / "lcs1-first6.hlog").read_text()
    lines = (DATA / "lcs1-first6.jsonl").read_text().splitlines()
    return text, [IntervalRecord.model_validate_json(line) for line in lines]


def test_a_real_log_parses_with_its_header_and_tags() -> None:
    text, _intervals = _real()

    log = parse_interval_log(text)

    assert log.base_time_s == pytest.approx(1795470484.956)
    assert log.tags() == ["write", "write.service", "read", "read.service"]
    assert response_tags(log) == ["write", "read"]
    assert len(log.intervals) == 24
    first = log.intervals[0]
    assert (first.tag, first.start_s, first.length_s, first.max_ms) == (
        "write",
        5.072,
        1.074,
        60.064,
    )
    h = first.histogram
    assert (h.lowest_discernible, h.highest_trackable, h.significant_digits) == (
        ENGINE_LOW_NS,
        ENGINE_HIGH_NS,
        ENGINE_DIGITS,
    )
    assert h.max_value / 1e6 == pytest.approx(first.max_ms, abs=0.0005)
    assert len(parse_interval_log(text, service=False).intervals) == 12


def test_each_real_line_gives_the_engines_interval_figures() -> None:
    text, intervals = _real()
    log = parse_interval_log(text)

    for interval in intervals:
        starts = [interval.t_start_s]
        for op, stats in interval.ops.items():
            _stats_equal(
                latency_stats(merge(select(log, tags=[op], starts_s=starts))), stats.response
            )
            service = merge(select(log, tags=[f"{op}.service"], starts_s=starts))
            _stats_equal(latency_stats(service), stats.service)
        total = merge(select(log, tags=response_tags(log), starts_s=starts))
        _stats_equal(latency_stats(total), interval.total.response)


def test_merged_real_intervals_hold_every_operation() -> None:
    text, intervals = _real()
    log = parse_interval_log(text)

    merged = latency_stats(
        merge(select(log, tags=["write"], starts_s=[i.t_start_s for i in intervals[2:]]))
    )

    later = [i.ops["write"].response for i in intervals[2:]]
    assert merged.count == sum(s.count for s in later)
    assert merged.max_ms == max(s.max_ms for s in later)
    weighted = sum(s.mean_ms * s.count for s in later) / merged.count
    assert merged.mean_ms == pytest.approx(weighted, rel=1e-12)
    for field in ("p50_ms", "p99_ms"):
        values = [getattr(s, field) for s in later]
        assert min(values) <= getattr(merged, field) <= max(values)


def _demo_trials() -> list[Path]:
    return sorted(DEMO_RUN.glob("trials/*/*/latency.hlog")) if DEMO_RUN.is_dir() else []


@pytest.mark.skipif(not _demo_trials(), reason=f"the demo run {DEMO_RUN} is not on this machine")
@pytest.mark.parametrize(
    "hlog", _demo_trials(), ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}"
)
def test_whole_real_logs_give_the_engine_summary(hlog: Path) -> None:
    summary = SummaryRecord.model_validate(
        json.loads((hlog.parent / "summary.json").read_text())["engine"]
    )
    log = parse_interval_log(hlog.read_text(), service=False)

    _stats_equal(latency_stats(merge(select(log, tags=response_tags(log)))), summary.total.response)
    for op, stats in summary.ops.items():
        _stats_equal(latency_stats(merge(select(log, tags=[op]))), stats.response)
