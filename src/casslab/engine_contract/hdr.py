"""A pure reader of HdrHistogram interval logs: text in, interval histograms out.

The engine (Rust, ``hdrhistogram`` crate 7.5) writes each trial's ``latency.hlog`` in the
interval log format 1.3 of HdrHistogram (Tene; https://hdrhistogram.github.io/HdrHistogram/):
``#[...]`` comment lines (``StartTime``, ``BaseTime``), a CSV header, then one line per
interval and tag::

    Tag=write,5.072,1.074,60.064,HISTFAAAB+B4nD...

(start in seconds since ``BaseTime``, length in seconds, the interval's max in ms, and the
histogram: base64 of a V2 *compressed* encoding). Values are nanoseconds. One response
line per operation type (``write``, ``read``) and one ``<op>.service`` line; the log holds
the measured intervals only, never the warm-up.

Encoding (the Java and Rust implementations agree): a compressed histogram is a 4-byte
big-endian cookie ``0x1c849304 | word-size bits``, the 4-byte length of a zlib stream, and
the stream, which inflates to a V2 histogram: cookie ``0x1c849303 | word-size bits``,
payload length, normalising index offset (0), significant digits, lowest discernible
value (i64), highest trackable value (i64), integer-to-double ratio (f64) (40 bytes in
all), then the counts array as ZigZag LEB128 varints (the 9th byte of a varint carries 8
bits) where a negative number ``-k`` stands for ``k`` consecutive empty buckets.

Percentiles follow the crate's ``value_at_quantile`` exactly (the count at the quantile is
``ceil(q · total)``, at least 1; the answer is the highest value equivalent to the first
bucket whose cumulative count reaches it), the mean its ``mean`` (each bucket's median
equivalent value weighted by its count), so merged interval histograms reproduce the
engine summary's numbers to the nanosecond. Histograms merge by adding counts bucket by
bucket, which is exact: percentiles of a merged histogram are the percentiles of all its
values, within the histogram's precision (3 significant digits here), never an average
of per-interval percentiles.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from casslab.engine_contract.engine_records import LatencyStats
from casslab.errors import AnalysisError

if TYPE_CHECKING:  # numpy loads when a histogram is first decoded, not with every command
    import numpy as np
    import numpy.typing as npt

V2_COOKIE = 0x1C849303
V2_COMPRESSED_COOKIE = 0x1C849304
_COOKIE_BASE_MASK = 0xFFFFFF0F  # the word-size bits (0xf0) vary between writers
V2_HEADER = struct.Struct(">IIIIqqd")  # cookie, payload, offset, digits, low, high, ratio
NS_PER_MS = 1_000_000.0
SERVICE_SUFFIX = ".service"  # the engine's service-time tags; response time has no suffix


@dataclass(frozen=True)
class Histogram:
    """One HdrHistogram: its layout and its non-empty buckets (counts-array index -> count)."""

    lowest_discernible: int
    highest_trackable: int
    significant_digits: int
    counts: Mapping[int, int] = field(default_factory=dict)

    # ------------------------------------------------------------ layout (as the crate)

    @property
    def unit_magnitude(self) -> int:
        return math.floor(math.log2(self.lowest_discernible))

    @property
    def sub_bucket_half_count_magnitude(self) -> int:
        largest_single_unit = 2 * 10**self.significant_digits
        return math.ceil(math.log2(largest_single_unit)) - 1

    def _bucket_and_sub(self, index: int) -> tuple[int, int]:
        half_magnitude = self.sub_bucket_half_count_magnitude
        half = 1 << half_magnitude
        bucket = (index >> half_magnitude) - 1
        sub = (index & (half - 1)) + half
        if bucket < 0:
            sub -= half
            bucket = 0
        return bucket, sub

    def value_at_index(self, index: int) -> int:
        """The lowest value counted in bucket ``index``."""
        bucket, sub = self._bucket_and_sub(index)
        return sub << (bucket + self.unit_magnitude)

    def equivalent_range(self, index: int) -> int:
        """How many values bucket ``index`` counts as one."""
        bucket, _sub = self._bucket_and_sub(index)
        return 1 << (self.unit_magnitude + bucket)

    def highest_equivalent(self, index: int) -> int:
        return self.value_at_index(index) + self.equivalent_range(index) - 1

    def median_equivalent(self, index: int) -> int:
        return self.value_at_index(index) + (self.equivalent_range(index) >> 1)

    # ------------------------------------------------------------ statistics

    @property
    def total_count(self) -> int:
        return sum(self.counts.values())

    def value_at_quantile(self, quantile: float) -> int:
        """The value at ``quantile`` (0..1) as the crate's ``value_at_quantile``; 0 if empty."""
        if not 0.0 <= quantile <= 1.0:
            raise AnalysisError(
                f"histogram quantile {quantile}: give a fraction in [0, 1] (0.99 for p99)"
            )
        target = max(1, math.ceil(quantile * self.total_count))
        running = 0
        for index in sorted(self.counts):
            running += self.counts[index]
            if running >= target:
                if quantile == 0.0:
                    return self.value_at_index(index)
                return self.highest_equivalent(index)
        return 0

    @property
    def max_value(self) -> int:
        """The largest value recorded (highest equivalent of the top bucket); 0 if empty."""
        nonzero = [i for i, c in self.counts.items() if c > 0]
        return self.highest_equivalent(max(nonzero)) if nonzero else 0

    @property
    def mean_value(self) -> float:
        """Mean of the bucket medians weighted by count (the crate's ``mean``); 0 if empty."""
        total = self.total_count
        if total == 0:
            return 0.0
        mean = 0.0
        for index in sorted(self.counts):
            mean += self.median_equivalent(index) * self.counts[index] / total
        return mean


@dataclass(frozen=True)
class IntervalHistogram:
    """One line of an interval log."""

    tag: str | None
    start_s: float  # seconds since the log's base time (the engine's start)
    length_s: float
    max_ms: float  # the line's Interval_Max field (the writer's unit: ms)
    histogram: Histogram


@dataclass(frozen=True)
class IntervalLog:
    """A parsed interval log: its base and start times (Unix seconds) and its lines."""

    base_time_s: float | None
    start_time_s: float | None
    intervals: tuple[IntervalHistogram, ...]

    def tags(self) -> list[str]:
        """Tags in order of first appearance (untagged lines are left out)."""
        seen: dict[str, None] = {}
        for interval in self.intervals:
            if interval.tag is not None:
                seen.setdefault(interval.tag, None)
        return list(seen)


# ---------------------------------------------------------------- decoding


def _varints_slow(payload: bytes) -> list[int]:
    """ZigZag LEB128 varints one byte at a time (the reference for :func:`_varints`)."""
    out: list[int] = []
    position = 0
    size = len(payload)
    while position < size:
        value = 0
        shift = 0
        for _ in range(8):
            byte = payload[position]
            position += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        else:
            value |= payload[position] << 56
            position += 1
        out.append((value >> 1) ^ -(value & 1))
    return out


def _varints(payload: bytes) -> npt.NDArray[np.int64]:
    """ZigZag LEB128 varints (HdrHistogram's 9-byte variant) of the counts payload.

    Vectorised: a byte below 0x80 ends a varint. A varint of 9 bytes (a count of 2⁵⁵ or
    more, or that many empty buckets) has a full last byte and is decoded byte by byte.
    """
    import numpy as np

    data = np.frombuffer(payload, dtype=np.uint8)
    if data.size == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.flatnonzero(data < 0x80)
    if ends.size == 0 or ends[-1] != data.size - 1:
        raise IndexError("the counts end inside a varint")
    starts = np.concatenate(([0], ends[:-1] + 1))
    if int(np.max(ends - starts)) >= 8:
        return np.asarray(_varints_slow(payload), dtype=np.int64)
    group = np.repeat(np.arange(ends.size), ends - starts + 1)
    shift = (np.arange(data.size) - starts[group]) * 7
    parts = (data & 0x7F).astype(np.uint64) << shift.astype(np.uint64)
    value = np.add.reduceat(parts, starts)
    return (value >> np.uint64(1)).astype(np.int64) ^ -(value & np.uint64(1)).astype(np.int64)


def _counts(payload: bytes) -> dict[int, int]:
    import numpy as np

    values = _varints(payload)
    steps = np.where(values < 0, -values, 1)
    indices = np.cumsum(steps) - steps  # where each entry starts in the counts array
    keep = values > 0
    return dict(zip(indices[keep].tolist(), values[keep].tolist(), strict=True))


def decode_histogram(encoded: str) -> Histogram:
    """A base64 V2 (compressed or not) histogram, as written in an interval log.

    Raises :class:`~casslab.errors.AnalysisError` naming what is wrong (not base64, an
    unknown cookie, a truncated or corrupt stream, a normalising offset).
    """
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise AnalysisError(
            f"decode HdrHistogram: not base64 ({error}); pass the last field of an "
            "interval log line"
        ) from error
    if len(raw) < 8:
        raise AnalysisError(f"decode HdrHistogram: {len(raw)} bytes is too short for a histogram")
    (cookie,) = struct.unpack_from(">I", raw, 0)
    if cookie & _COOKIE_BASE_MASK == V2_COMPRESSED_COOKIE:
        (length,) = struct.unpack_from(">I", raw, 4)
        try:
            raw = zlib.decompress(raw[8 : 8 + length])
        except zlib.error as error:
            raise AnalysisError(
                f"decode HdrHistogram: the compressed stream is corrupt ({error})"
            ) from error
        if len(raw) < 4:
            raise AnalysisError("decode HdrHistogram: the inflated histogram is empty")
        (cookie,) = struct.unpack_from(">I", raw, 0)
    if cookie & _COOKIE_BASE_MASK != V2_COOKIE:
        raise AnalysisError(
            f"decode HdrHistogram: cookie {cookie:#010x} is not a V2 histogram; only the V2 "
            "encoding (HdrHistogram 2.x, the hdrhistogram crate) is supported"
        )
    if len(raw) < V2_HEADER.size:
        raise AnalysisError(f"decode HdrHistogram: {len(raw)} bytes is shorter than its header")
    _cookie, payload_length, offset, digits, low, high, _ratio = V2_HEADER.unpack_from(raw, 0)
    if offset != 0:
        raise AnalysisError(
            f"decode HdrHistogram: normalising index offset {offset} (a shifted histogram) is "
            "not supported"
        )
    payload = raw[V2_HEADER.size : V2_HEADER.size + payload_length]
    if len(payload) != payload_length or low < 1 or not 0 <= digits <= 5:
        raise AnalysisError(
            f"decode HdrHistogram: truncated or invalid (payload {len(payload)} of "
            f"{payload_length} bytes, lowest {low}, {digits} digits)"
        )
    try:
        counts = _counts(payload)
    except IndexError as error:
        raise AnalysisError("decode HdrHistogram: the counts end inside a varint") from error
    return Histogram(
        lowest_discernible=low, highest_trackable=high, significant_digits=digits, counts=counts
    )


def _header_time(line: str, key: str) -> float | None:
    prefix = f"#[{key}: "
    if not line.startswith(prefix):
        return None
    try:
        return float(line[len(prefix) :].split()[0].rstrip("]"))
    except (ValueError, IndexError):
        return None


def parse_interval_log(text: str, *, service: bool = True) -> IntervalLog:
    """Every histogram line of an interval log, in file order; without the engine's
    service-time lines (tags ``*.service``) when ``service`` is False (half the decoding).

    Raises :class:`~casslab.errors.AnalysisError` naming the line when one cannot be read;
    an empty last line (a log cut by a crash) is tolerated only when it is the last.
    """
    base: float | None = None
    start: float | None = None
    intervals: list[IntervalHistogram] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            base = _header_time(line, "BaseTime") if base is None else base
            start = _header_time(line, "StartTime") if start is None else start
            continue
        if line.startswith('"StartTimestamp"'):
            continue
        tag: str | None = None
        body = line
        if body.startswith("Tag="):
            tag, _, body = body[4:].partition(",")
            if not service and tag.endswith(SERVICE_SUFFIX):
                continue
        fields = body.split(",")
        try:
            if len(fields) != 4:
                raise ValueError(f"{len(fields)} fields, expected 4")
            interval = IntervalHistogram(
                tag=tag,
                start_s=float(fields[0]),
                length_s=float(fields[1]),
                max_ms=float(fields[2]),
                histogram=decode_histogram(fields[3]),
            )
        except (ValueError, AnalysisError) as error:
            if number == len(lines):
                break  # the writer was cut in the middle of its last line
            raise AnalysisError(
                f"read HdrHistogram log line {number}: {error}; the file is not an interval "
                "log written by the engine"
            ) from error
        intervals.append(interval)
    if base is None:
        base = start
    return IntervalLog(base_time_s=base, start_time_s=start, intervals=tuple(intervals))


# ---------------------------------------------------------------- merging and statistics


def merge(histograms: Iterable[Histogram]) -> Histogram | None:
    """One histogram holding every value of ``histograms``; ``None`` when there are none.

    The histograms must share one layout (lowest value and significant digits), as every
    histogram of the engine does; otherwise :class:`~casslab.errors.AnalysisError`.
    """
    chosen = list(histograms)
    if not chosen:
        return None
    first = chosen[0]
    counts: dict[int, int] = {}
    for histogram in chosen:
        if (histogram.lowest_discernible, histogram.significant_digits) != (
            first.lowest_discernible,
            first.significant_digits,
        ):
            raise AnalysisError(
                "merge HdrHistograms: layouts differ (lowest "
                f"{first.lowest_discernible} / {first.significant_digits} digits vs "
                f"{histogram.lowest_discernible} / {histogram.significant_digits}); merge "
                "histograms of one log"
            )
        for index, count in histogram.counts.items():
            counts[index] = counts.get(index, 0) + count
    return Histogram(
        lowest_discernible=first.lowest_discernible,
        highest_trackable=max(h.highest_trackable for h in chosen),
        significant_digits=first.significant_digits,
        counts=counts,
    )


def latency_stats(histogram: Histogram | None, *, unit_per_ms: float = NS_PER_MS) -> LatencyStats:
    """Count, mean, p50 / p95 / p99 / p99.9 and max in milliseconds, as the engine reports
    them (:func:`casslab.engine_contract.engine_records.LatencyStats`); all zero for no histogram or
    no value. ``unit_per_ms`` is how many histogram units make a millisecond (ns: 10⁶)."""
    if histogram is None or histogram.total_count == 0:
        return LatencyStats(
            count=0, mean_ms=0.0, p50_ms=0.0, p95_ms=0.0, p99_ms=0.0, p999_ms=0.0, max_ms=0.0
        )
    return LatencyStats(
        count=histogram.total_count,
        mean_ms=histogram.mean_value / unit_per_ms,
        p50_ms=histogram.value_at_quantile(0.50) / unit_per_ms,
        p95_ms=histogram.value_at_quantile(0.95) / unit_per_ms,
        p99_ms=histogram.value_at_quantile(0.99) / unit_per_ms,
        p999_ms=histogram.value_at_quantile(0.999) / unit_per_ms,
        max_ms=histogram.max_value / unit_per_ms,
    )


def response_tags(log: IntervalLog) -> list[str]:
    """The response-time tags (the operation names) of an engine log: not ``*.service``."""
    return [t for t in log.tags() if not t.endswith(SERVICE_SUFFIX)]


def select(
    log: IntervalLog,
    *,
    tags: Sequence[str] | None = None,
    starts_s: Iterable[float] | None = None,
    tolerance_s: float = 0.0015,
) -> list[Histogram]:
    """The histograms of ``log`` with a tag in ``tags`` (any tag when None) whose start
    matches one of ``starts_s`` (seconds since the base time, as the engine's interval
    records give them; the log keeps 3 decimals, hence ``tolerance_s``); every start when
    ``starts_s`` is None."""
    wanted = sorted(starts_s) if starts_s is not None else None
    out: list[Histogram] = []
    for interval in log.intervals:
        if tags is not None and interval.tag not in tags:
            continue
        if wanted is not None and not _near_any(interval.start_s, wanted, tolerance_s):
            continue
        out.append(interval.histogram)
    return out


def _near_any(value: float, ordered: Sequence[float], tolerance: float) -> bool:
    from bisect import bisect_left

    position = bisect_left(ordered, value - tolerance)
    return position < len(ordered) and abs(ordered[position] - value) <= tolerance
