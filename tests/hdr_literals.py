"""HdrHistogram interval logs written by hand, for tests of :mod:`casslab.engine_contract.hdr`.

The encoding is the engine's (the ``hdrhistogram`` crate's V2, optionally deflated): the
counts array as ZigZag LEB128 varints (a 9th byte carries 8 bits), a run of more than one
empty bucket as one negative number. With the engine's layout (lowest 1 us = 2⁹ ns units,
3 digits: 2048 sub-buckets) bucket ``i < 2048`` counts the values ``i·512 .. i·512+511`` ns.
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Mapping, Sequence

ENGINE_LOW_NS, ENGINE_DIGITS, ENGINE_HIGH_NS = 1_000, 3, 3_600_000_000_000
HEADER = (
    "#[casslab-engine 0.1.0 latency log; values in nanoseconds]\n"
    "#[Histogram log format version 1.3]\n"
    "#[StartTime: 1700000000.000 (seconds since epoch)]\n"
    "#[BaseTime: 1700000000.000 (seconds since epoch)]\n"
    '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n'
)


def varint(value: int) -> bytes:
    z = ((value << 1) ^ (value >> 63)) & (2**64 - 1)
    out = bytearray()
    for _ in range(8):
        if z < 0x80:
            out.append(z)
            return bytes(out)
        out.append(0x80 | (z & 0x7F))
        z >>= 7
    out.append(z & 0xFF)
    return bytes(out)


def encode(
    entries: Mapping[int, int],
    *,
    low: int = ENGINE_LOW_NS,
    digits: int = ENGINE_DIGITS,
    compress: bool = True,
) -> str:
    """Base64 of a V2 histogram with ``entries`` (bucket index -> count)."""
    counts = [0] * (max(entries, default=0) + 1)
    for index, count in entries.items():
        counts[index] = count
    payload = bytearray()
    index = 0
    while index < len(counts):
        if counts[index] == 0:
            run = 1
            while index + run < len(counts) and counts[index + run] == 0:
                run += 1
            payload += varint(-run if run > 1 else 0)
            index += run
            continue
        payload += varint(counts[index])
        index += 1
    raw = struct.pack(">IIIIqqd", 0x1C849313, len(payload), 0, digits, low, 2**40, 1.0)
    raw += bytes(payload)
    if compress:
        deflated = zlib.compress(raw)
        raw = struct.pack(">II", 0x1C849314, len(deflated)) + deflated
    return base64.b64encode(raw).decode()


def log_text(lines: Sequence[tuple[str, float, float, Mapping[int, int]]]) -> str:
    """An interval log: one line per ``(tag, start_s, length_s, entries)``."""
    body = []
    for tag, start, length, entries in lines:
        top = max((i for i, c in entries.items() if c), default=0)
        body.append(
            f"Tag={tag},{start:.3f},{length:.3f},{(top * 512 + 511) / 1e6:.3f},{encode(entries)}"
        )
    return HEADER + "\n".join(body) + "\n"
