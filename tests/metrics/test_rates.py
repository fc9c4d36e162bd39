"""Rate and diff computations on literal readings."""

from __future__ import annotations

import math

import pytest

from casslab.metrics.rates import (
    CounterTracker,
    CpuTimes,
    DiskStats,
    busy_core_pct,
    busy_pct,
    cpu_pcts,
    disk_rates,
    mean_per_event,
    parse_diskstats,
    rate_per_s,
)


@pytest.mark.parametrize(
    ("prev", "cur", "dt", "expected"),
    [
        (0.0, 10.0, 1.0, 10.0),
        (100.0, 150.0, 2.0, 25.0),
        (5.0, 5.0, 1.0, 0.0),
        (10.0, 3.0, 1.0, None),  # counter reset (restarted process)
        (0.0, 10.0, 0.0, None),  # empty interval
        (0.0, 10.0, -1.0, None),
    ],
)
def test_rate_per_s(prev: float, cur: float, dt: float, expected: float | None) -> None:
    assert rate_per_s(prev, cur, dt) == expected


def test_busy_pct_is_percent_of_one_core() -> None:
    assert busy_pct(10.0, 11.5, 1.0) == pytest.approx(150.0)
    assert busy_pct(10.0, 10.25, 0.5) == pytest.approx(50.0)
    assert busy_pct(10.0, 9.0, 1.0) is None


@pytest.mark.parametrize(
    ("prev_total", "cur_total", "prev_n", "cur_n", "expected"),
    [
        (0, 5000, 0, 10, 500.0),  # 10 requests, 5000 us in total
        (1000, 1000, 4, 4, None),  # no request: no mean
        (1000, 900, 4, 6, None),  # reset
        (1000, 4000, 4, 7, 1000.0),
    ],
)
def test_mean_per_event(
    prev_total: float, cur_total: float, prev_n: float, cur_n: float, expected: float | None
) -> None:
    assert mean_per_event(prev_total, cur_total, prev_n, cur_n) == expected


def _cpu(user: float, system: float, idle: float, iowait: float, steal: float = 0.0) -> CpuTimes:
    return CpuTimes(user, 0.0, system, idle, iowait, 0.0, 0.0, steal)


def test_cpu_pcts_split_the_interval() -> None:
    prev = _cpu(100, 50, 1000, 10)
    cur = _cpu(160, 70, 1100, 20, steal=10)  # 60 + 20 + 100 + 10 + 10 = 200 s
    p = cpu_pcts(prev, cur)
    assert p is not None
    assert p["host.cpu_user_pct"] == pytest.approx(30.0)
    assert p["host.cpu_system_pct"] == pytest.approx(10.0)
    assert p["host.cpu_idle_pct"] == pytest.approx(50.0)
    assert p["host.cpu_iowait_pct"] == pytest.approx(5.0)
    assert p["host.cpu_steal_pct"] == pytest.approx(5.0)
    assert p["host.cpu_busy_pct"] == pytest.approx(45.0)


@pytest.mark.parametrize(
    ("idle", "iowait", "steal", "dt", "expected"),
    [
        (1.0, 0.0, 0.0, 1.0, 100.0),  # 2 CPUs, one idle all second: one core busy
        (0.5, 0.25, 0.25, 1.0, 100.0),  # iowait and steal are not this host's work
        (0.4, 0.0, 0.0, 2.0, 180.0),  # 4 CPU-seconds, 0.4 idle: 3.6 busy over 2 s
        (2.5, 0.0, 0.0, 1.0, 0.0),  # more idle than wall time (clock skew): clamped
        (0.0, 0.0, 0.0, 0.0, None),  # empty interval
    ],
)
def test_busy_core_pct_from_free_time_over_wall_time(
    idle: float, iowait: float, steal: float, dt: float, expected: float | None
) -> None:
    prev = _cpu(100, 50, 1000, 10, steal=5)
    # user and system ticks are left as they were: the busy time comes from the free time
    cur = _cpu(100, 50, 1000 + idle, 10 + iowait, steal=5 + steal)
    value = busy_core_pct(prev, cur, dt, cpus=2)
    assert value == (None if expected is None else pytest.approx(expected))


def test_cpu_pcts_of_an_empty_interval() -> None:
    t = _cpu(1, 1, 1, 1)
    assert cpu_pcts(t, t) is None


DISKSTATS = """\
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 32105 6013 3323762 23604 8881 32811 2520448 6128 0 6032 29948 3709 40 145288 199
 254       1 vda1 100 0 800 10 50 0 400 5 0 20 15
"""


def test_parse_diskstats_picks_the_device() -> None:
    d = parse_diskstats(DISKSTATS, "vda")
    assert d == DiskStats(32105, 3323762, 23604, 8881, 2520448, 6128, 6032)
    assert parse_diskstats(DISKSTATS, "vda1") == DiskStats(100, 800, 10, 50, 400, 5, 20)
    assert parse_diskstats(DISKSTATS, "sdz") is None


def test_disk_rates_like_iostat() -> None:
    prev = DiskStats(
        reads=100,
        sectors_read=1000,
        read_ms=50,
        writes=200,
        sectors_written=4000,
        write_ms=100,
        io_ms=1000,
    )
    cur = DiskStats(
        reads=120,
        sectors_read=3048,
        read_ms=90,
        writes=260,
        sectors_written=8096,
        write_ms=220,
        io_ms=1500,
    )
    r = disk_rates(prev, cur, 2.0)
    assert r is not None
    assert r["host.disk_read_bytes_per_s"] == pytest.approx(2048 * 512 / 2)
    assert r["host.disk_write_bytes_per_s"] == pytest.approx(4096 * 512 / 2)
    assert r["host.disk_reads_per_s"] == pytest.approx(10.0)
    assert r["host.disk_writes_per_s"] == pytest.approx(30.0)
    assert r["host.disk_await_ms"] == pytest.approx((40 + 120) / 80)
    assert r["host.disk_util_pct"] == pytest.approx(25.0)


def test_disk_rates_idle_device_has_zero_await() -> None:
    d = DiskStats(1, 1, 1, 1, 1, 1, 1)
    r = disk_rates(d, d, 1.0)
    assert r is not None
    assert r["host.disk_await_ms"] == 0.0
    assert r["host.disk_util_pct"] == 0.0


def test_disk_rates_after_a_counter_wrap_is_unknown() -> None:
    assert disk_rates(DiskStats(5, 5, 5, 5, 5, 5, 5), DiskStats(4, 5, 5, 5, 5, 5, 5), 1.0) is None


def test_counter_tracker() -> None:
    tr = CounterTracker()
    assert tr.update("a", 10.0, 100.0) is None
    assert tr.update("a", 30.0, 102.0) == pytest.approx(10.0)
    assert tr.update("b", 1.0, 102.0) is None
    assert tr.update("a", 5.0, 103.0) is None  # reset
    assert tr.update("a", 8.0, 104.0) == pytest.approx(3.0)
    tr.forget("a")
    assert tr.update("a", 9.0, 105.0) is None
    assert not math.isnan(tr.update("b", 1.0, 103.0) or 0.0)
