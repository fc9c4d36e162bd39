"""The cgroup sampler's pure side: file texts parsed, two readings made into values."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from casslab.metrics.catalogue import names
from casslab.metrics.cgroup_stats import (
    CgroupReading,
    count_lines,
    interval_values,
    parse_blkio_v1,
    parse_flat_keyed,
    parse_io_stat_v2,
    parse_memory_limit,
    throttled_periods_pct,
)

BLKIO_V1 = """\
8:16 Read 4096
8:16 Write 8192
8:16 Sync 12288
8:16 Async 0
8:16 Discard 0
8:16 Total 12288
254:0 Read 1000
254:0 Write 24
254:0 Sync 0
254:0 Async 1024
254:0 Discard 0
254:0 Total 1024
Total 13312
"""

IO_STAT_V2 = """\
8:16 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0
254:0 rbytes=1000 wbytes=24 rios=3 wios=1 dbytes=512 dios=1
"""


def test_parse_flat_keyed() -> None:
    text = "nr_periods 10\nnr_throttled 2\nthrottled_time 5000000000\n"
    assert parse_flat_keyed(text) == {
        "nr_periods": 10,
        "nr_throttled": 2,
        "throttled_time": 5_000_000_000,
    }


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("536870912\n", 536870912),
        ("9223372036854771712\n", None),  # v1 "no limit" with 4 KiB pages
        ("9223372036854710272\n", None),  # v1 "no limit" with 64 KiB pages
        ("max\n", None),  # v2 "no limit"
        ("1073741824\n", 1 << 30),
        ("", None),
    ],
)
def test_parse_memory_limit(text: str, limit: int | None) -> None:
    assert parse_memory_limit(text) == limit


@pytest.mark.parametrize(
    ("text", "parse", "read_written"),
    [
        (BLKIO_V1, parse_blkio_v1, (5096, 8216)),
        ("Total 0\n", parse_blkio_v1, (0, 0)),  # no device did I/O yet (or none counted)
        ("", parse_blkio_v1, (0, 0)),
        (IO_STAT_V2, parse_io_stat_v2, (5096, 8216)),
        ("", parse_io_stat_v2, (0, 0)),
    ],
)
def test_block_io_summed_over_devices(
    text: str, parse: Callable[[str], tuple[int, int]], read_written: tuple[int, int]
) -> None:
    assert parse(text) == read_written


def test_count_lines() -> None:
    assert count_lines("101\n102\n\n103\n") == 3
    assert count_lines("") == 0


@pytest.mark.parametrize(
    ("periods", "throttled", "share"),
    [
        ((100, 110), (40, 45), 50.0),
        ((100, 100), (40, 40), 0.0),  # no period ran: no quota, or idle
        ((100, 120), (40, 40), 0.0),
        ((100, 10), (40, 1), None),  # counters went back: no value
    ],
)
def test_throttled_periods_pct(
    periods: tuple[int, int], throttled: tuple[int, int], share: float | None
) -> None:
    assert throttled_periods_pct(*periods, *throttled) == share


FULL_1 = CgroupReading(
    cpu_s=10.0,
    throttled_s=1.0,
    periods=100,
    throttled_periods=10,
    memory_bytes=1000,
    memory_limit_bytes=4000,
    cache_bytes=300,
    rss_bytes=600,
    read_bytes=1_000_000,
    written_bytes=5_000_000,
    pids=40,
    cpu_limit_cpus=0.5,
)
FULL_2 = FULL_1._replace(
    cpu_s=11.0,  # + 1 s of CPU in 2 s: 50 % of one core
    throttled_s=1.5,  # + 0.5 s throttled in 2 s: 25 %
    periods=120,
    throttled_periods=15,  # 5 of 20 periods: 25 %
    memory_bytes=1100,
    read_bytes=1_000_000,
    written_bytes=9_000_000,  # + 4 MB in 2 s
    pids=42,
)


def test_first_reading_gives_the_values_at_the_instant_only() -> None:
    assert interval_values(None, FULL_1, 0.0) == {
        "cgroup.cpu_throttled_s": 1.0,
        "cgroup.cpu_limit_cpus": 0.5,
        "cgroup.memory_usage_bytes": 1000.0,
        "cgroup.memory_limit_bytes": 4000.0,
        "cgroup.memory_cache_bytes": 300.0,
        "cgroup.memory_rss_bytes": 600.0,
        "cgroup.pids": 40.0,
    }


def test_two_readings_give_the_interval_rates() -> None:
    values = interval_values(FULL_1, FULL_2, 2.0)
    assert values == {
        "cgroup.cpu_usage_pct": pytest.approx(50.0),
        "cgroup.cpu_throttled_pct": pytest.approx(25.0),
        "cgroup.cpu_throttled_periods_pct": pytest.approx(25.0),
        "cgroup.cpu_throttled_s": 1.5,
        "cgroup.cpu_limit_cpus": 0.5,  # the quota, at every reading
        "cgroup.memory_usage_bytes": 1100.0,
        "cgroup.memory_limit_bytes": 4000.0,
        "cgroup.memory_cache_bytes": 300.0,
        "cgroup.memory_rss_bytes": 600.0,
        "cgroup.block_read_bytes_per_s": 0.0,
        "cgroup.block_write_bytes_per_s": pytest.approx(2e6),
        "cgroup.pids": 42.0,
    }
    assert set(values) <= names()


def test_missing_files_leave_their_metrics_out() -> None:
    cpu_only = CgroupReading(cpu_s=1.0)
    assert interval_values(cpu_only, CgroupReading(cpu_s=2.0), 1.0) == {
        "cgroup.cpu_usage_pct": pytest.approx(100.0)
    }
    assert interval_values(None, CgroupReading(), 0.0) == {}


def test_a_counter_that_went_back_or_an_empty_interval_gives_no_rate() -> None:
    restarted = FULL_2._replace(cpu_s=0.5, written_bytes=0, periods=1, throttled_periods=0)
    values = interval_values(FULL_1, restarted, 2.0)
    assert "cgroup.cpu_usage_pct" not in values
    assert "cgroup.block_write_bytes_per_s" not in values
    assert "cgroup.cpu_throttled_periods_pct" not in values
    assert values["cgroup.cpu_throttled_pct"] == pytest.approx(25.0)
    assert set(interval_values(FULL_1, FULL_2, 0.0)) == set(interval_values(None, FULL_2, 0.0))
