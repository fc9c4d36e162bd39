"""The HdrHistogram interval-log writer: the inverse of the reader, byte for byte the
engine's encoding.

``data/lcs1-first6.hlog`` was written by the Rust engine (the ``hdrhistogram`` crate):
every one of its histograms, decoded and encoded again, inflates to the very bytes the
crate wrote. HdrHistogram's Java log processor reading a merged log is checked against a
real node in ``tests/load/test_clients_integration.py``.
"""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

from casslab.engine_contract.hdr import (
    Histogram,
    decode_histogram,
    latency_stats,
    merge,
    parse_interval_log,
)
from casslab.engine_contract.hdr_encode import (
    LogLine,
    counts_payload,
    encode_histogram,
    interval_log_text,
    v2_bytes,
)
from hdr_literals import ENGINE_DIGITS, ENGINE_HIGH_NS, ENGINE_LOW_NS, encode

DATA = Path(__file__).parent / "data"


def histogram(counts: dict[int, int]) -> Histogram:
    return Histogram(
        lowest_discernible=ENGINE_LOW_NS,
        highest_trackable=ENGINE_HIGH_NS,
        significant_digits=ENGINE_DIGITS,
        counts=counts,
    )


def inflated(encoded: str) -> bytes:
    raw = base64.b64decode(encoded)
    (length,) = struct.unpack_from(">I", raw, 4)
    return zlib.decompress(raw[8 : 8 + length])


@pytest.mark.parametrize(
    "counts",
    [
        {},
        {0: 1},
        {1: 3},  # one empty bucket before: a zero count, not a run
        {0: 1, 5: 2**56 + 3, 1024: 7, 5000: 1},  # a 9-byte varint, long runs
        {2047: 10, 2048: 20, 3072: 5, 40_000: 1},
    ],
)
def test_encode_then_decode_gives_the_same_buckets_and_percentiles(counts: dict[int, int]) -> None:
    original = histogram(counts)
    back = decode_histogram(encode_histogram(original))

    assert dict(back.counts) == {i: c for i, c in counts.items() if c}
    assert (back.lowest_discernible, back.highest_trackable, back.significant_digits) == (
        ENGINE_LOW_NS,
        ENGINE_HIGH_NS,
        ENGINE_DIGITS,
    )
    assert latency_stats(back) == latency_stats(original)


def test_the_counts_payload_is_the_hand_encoders() -> None:
    """The literal encoder of the reader's tests and this one agree on the counts array."""
    counts = {0: 1, 1: 0, 5: 2**56 + 3, 1024: 7, 5000: 1}
    by_hand = inflated(encode(counts))
    assert counts_payload(histogram({i: c for i, c in counts.items() if c})) == by_hand[40:]


def test_every_engine_histogram_re_encodes_to_the_crates_bytes() -> None:
    text = (DATA / "lcs1-first6.hlog").read_text()
    encoded = [line.rsplit(",", 1)[1] for line in text.splitlines() if line.startswith("Tag=")]
    assert len(encoded) >= 12
    for field in encoded:
        decoded = decode_histogram(field)
        ours = encode_histogram(decoded)

        assert inflated(ours) == inflated(field)
        assert v2_bytes(decoded) == inflated(field)
        assert base64.b64decode(ours)[:4] == base64.b64decode(field)[:4]  # the same cookie


def test_a_written_log_reads_back_line_for_line() -> None:
    engine_log = parse_interval_log((DATA / "lcs1-first6.hlog").read_text())
    lines = [
        LogLine(tag=i.tag or "", start_s=i.start_s, length_s=i.length_s, histogram=i.histogram)
        for i in engine_log.intervals
    ]
    assert engine_log.base_time_s is not None
    text = interval_log_text(engine_log.base_time_s, lines, writer="casslab test")
    back = parse_interval_log(text)

    assert back.base_time_s == engine_log.base_time_s
    assert back.start_time_s == engine_log.start_time_s
    assert len(back.intervals) == len(engine_log.intervals)
    for ours, theirs in zip(back.intervals, engine_log.intervals, strict=True):
        assert (ours.tag, ours.start_s, ours.length_s) == (
            theirs.tag,
            theirs.start_s,
            theirs.length_s,
        )
        assert ours.max_ms == theirs.max_ms  # the engine's Interval_Max, to its 3 decimals
        assert dict(ours.histogram.counts) == dict(theirs.histogram.counts)
    whole = merge(i.histogram for i in back.intervals if i.tag == "write")
    assert latency_stats(whole) == latency_stats(
        merge(i.histogram for i in engine_log.intervals if i.tag == "write")
    )


def test_tags_with_separators_are_written_safely() -> None:
    text = interval_log_text(
        0.0, [LogLine(tag="a b,c", start_s=0, length_s=1, histogram=histogram({3: 1}))], writer="t"
    )
    assert parse_interval_log(text).tags() == ["a_b_c"]
