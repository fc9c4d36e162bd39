"""A pure writer of HdrHistogram interval logs: the inverse of :mod:`casslab.engine_contract.hdr`.

:func:`encode_histogram` writes a :class:`~casslab.engine_contract.hdr.Histogram` in the V2
*compressed* encoding the engine's ``hdrhistogram`` crate writes (and HdrHistogram's Java
tools read): the inflated bytes are those of the crate's ``V2Serializer`` byte for byte
(cookie ``0x1c849313``, payload length, offset 0, significant digits, lowest and highest
value, ratio 1.0, then the counts array up to the highest non-empty bucket as ZigZag
LEB128 varints, a run of more than one empty bucket as one negative number), deflated
with zlib (cookie ``0x1c849314`` and the deflated length before it). Only the deflated
bytes may differ from the crate's (another deflate implementation); they inflate to the
same histogram.

:func:`interval_log_text` writes a whole log in the format 1.3 the engine writes: the
``StartTime`` / ``BaseTime`` comments, the CSV header, one ``Tag=...`` line per interval.
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from casslab.engine_contract.hdr import NS_PER_MS, V2_HEADER, Histogram

V2_COOKIE_WRITTEN = 0x1C849313  # V2 with the crate's (and Java's) word-size bits
V2_COMPRESSED_COOKIE_WRITTEN = 0x1C849314
_U64 = 2**64


def _zigzag_varint(value: int, out: bytearray) -> None:
    """HdrHistogram's ZigZag LEB128: 7 bits a byte for 8 bytes, the 9th carries 8 bits."""
    z = ((value << 1) ^ (value >> 63)) % _U64
    for _ in range(8):
        if z < 0x80:
            out.append(z)
            return
        out.append(0x80 | (z & 0x7F))
        z >>= 7
    out.append(z & 0xFF)


def counts_payload(histogram: Histogram) -> bytes:
    """The counts array as the crate's ``encode_counts`` writes it (up to the highest
    non-empty bucket; an empty histogram is one zero count)."""
    nonzero = sorted(i for i, c in histogram.counts.items() if c > 0)
    out = bytearray()
    position = 0
    for index in nonzero:
        gap = index - position
        if gap == 1:
            _zigzag_varint(0, out)
        elif gap > 1:
            _zigzag_varint(-gap, out)
        _zigzag_varint(histogram.counts[index], out)
        position = index + 1
    if not nonzero:
        _zigzag_varint(0, out)
    return bytes(out)


def v2_bytes(histogram: Histogram) -> bytes:
    """The uncompressed V2 encoding (the crate's ``V2Serializer`` output)."""
    payload = counts_payload(histogram)
    header = V2_HEADER.pack(
        V2_COOKIE_WRITTEN,
        len(payload),
        0,
        histogram.significant_digits,
        histogram.lowest_discernible,
        histogram.highest_trackable,
        1.0,
    )
    return header + payload


def encode_histogram(histogram: Histogram) -> str:
    """Base64 of the V2 compressed encoding, as in an interval log line."""
    deflated = zlib.compress(v2_bytes(histogram))
    raw = struct.pack(">II", V2_COMPRESSED_COOKIE_WRITTEN, len(deflated)) + deflated
    return base64.b64encode(raw).decode("ascii")


def log_tag(name: str) -> str:
    """``name`` as a log tag: the separators of a log line (comma, space, line breaks)
    become ``_``, as the engine writes them."""
    return "".join("_" if c in ", \r\n" else c for c in name)


@dataclass(frozen=True)
class LogLine:
    """One histogram line to write: its tag, start (s since the base time), length (s)."""

    tag: str
    start_s: float
    length_s: float
    histogram: Histogram


def interval_log_text(base_time_s: float, lines: Iterable[LogLine], *, writer: str) -> str:
    """A whole interval log (format 1.3; values in ns, ``Interval_Max`` in ms as the
    engine and the Java writer give it); ``writer`` names what wrote it (first comment)."""
    out = [
        f"#[{writer}; values in nanoseconds]",
        "#[Histogram log format version 1.3]",
        f"#[StartTime: {base_time_s:.3f} (seconds since epoch)]",
        f"#[BaseTime: {base_time_s:.3f} (seconds since epoch)]",
        '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"',
    ]
    for line in lines:
        tag = log_tag(line.tag)
        max_ms = line.histogram.max_value / NS_PER_MS
        out.append(
            f"Tag={tag},{line.start_s:.3f},{line.length_s:.3f},{max_ms:.3f},"
            f"{encode_histogram(line.histogram)}"
        )
    return "\n".join(out) + "\n"
