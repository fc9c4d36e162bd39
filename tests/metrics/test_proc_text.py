"""The /proc parsers, on text recorded from a Linux 6.x host (numbers worked out by hand)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from casslab.metrics.proc_text import (
    FsUsage,
    NetTotals,
    ProcTextError,
    count_cpus,
    create_time_s,
    net_totals,
    parse_boot_time,
    parse_cpu_times,
    parse_df_p,
    parse_getconf,
    parse_loadavg,
    parse_meminfo,
    parse_net_dev,
    parse_proc_io,
    parse_proc_stat,
    parse_proc_status,
    parse_statfs,
    parse_uptime,
    split_headed,
)
from casslab.metrics.rates import CpuTimes

STAT = """\
cpu  5914960 47466 1346075 6696794 27770 0 154176 8368 0 0
cpu0 2812706 16026 662147 3516775 7776 0 77986 4207 0 0
cpu1 3102253 31439 683927 3180019 19994 0 76190 4161 0 0
intr 376394311 0 0 0 0
ctxt 1234
btime 1795464972
processes 31173
"""

MEMINFO = """\
MemTotal:       24684096 kB
MemFree:        20511456 kB
MemAvailable:   21805052 kB
Buffers:           72820 kB
Cached:          1425224 kB
SwapCached:            0 kB
SReclaimable:     278420 kB
HugePages_Total:       0
"""

NET_DEV = """\
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 205719025123 269509997    0    0    0     0          0         0 205719025123 269509997    0    0    0     0       0          0
  eth0:    1000      10    0    0    0     0          0         0     2500      20    0    0    0     0       0          0
"""  # noqa: E501

# a command name with a space and a parenthesis: fields are counted after the last ")"
PID_STAT = (
    "31184 (java (x) y) S 31134 31134 16399 0 -1 4194304 98 0 0 0 250 40 0 0 20 0 57 0 "
    "7240339 3133440 414 18446744073709551615 94287776362496 94287776382377 0 0 0 0 0 0 0 "
    "0 0 17 1 0 0 0 0 0\n"
)

STATUS = """\
Name:\tjava
Umask:\t0022
State:\tS (sleeping)
Tgid:\t31184
VmRSS:\t    8684 kB
RssAnon:\t    2864 kB
Threads:\t57
"""

IO = """\
rchar: 6976
wchar: 0
syscr: 10
syscw: 0
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
"""


def test_cpu_times_are_ticks_over_clk_tck() -> None:
    t = parse_cpu_times(STAT, 100)
    assert t == CpuTimes(59149.60, 474.66, 13460.75, 66967.94, 277.70, 0.0, 1541.76, 83.68)


def test_cpu_times_of_an_old_kernel_without_steal() -> None:
    assert parse_cpu_times("cpu 100 0 50 1000\n", 100) == CpuTimes(1, 0, 0.5, 10, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("text", "expected"), [(STAT, 2), ("cpu 1 2 3 4\ncpu0 1 2 3 4\ncpu7 1 2 3 4\n", 2)]
)
def test_count_cpus(text: str, expected: int) -> None:
    assert count_cpus(text) == expected


def test_boot_time() -> None:
    assert parse_boot_time(STAT) == 1795464972


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: parse_cpu_times("intr 1\n", 100), "no `cpu` line"),
        (lambda: parse_cpu_times("cpu 1 x 3 4\n", 100), "'x' is not an integer"),
        (lambda: count_cpus("cpu 1 2 3 4\n"), "no `cpuN` line"),
        (lambda: parse_boot_time("cpu 1\n"), "no `btime` line"),
        (lambda: parse_loadavg(""), "no load average"),
        (lambda: parse_uptime("up"), "no uptime"),
        (lambda: parse_meminfo("Cached: 1 kB\n"), "no MemTotal or MemFree"),
        (lambda: parse_net_dev("a\nb\nlo 1 2\n"), "is not `name: counters`"),
        (lambda: parse_statfs("1 2 3\n"), "is not `blocks free available size`"),
        (lambda: parse_df_p("Filesystem\n"), "no filesystem line"),
        (lambda: parse_proc_stat("1 (x) S 2 3\n"), "is not a stat line"),
        (lambda: parse_proc_status("Name:\tx\n"), "no Name, State or Threads"),
        (lambda: parse_proc_status("Name:\tx\nState:\tS\nThreads:\t1\nVmRSS:\t1 MB\n"), "kB"),
        (lambda: parse_proc_io("rchar: 1\n"), "no read_bytes or write_bytes"),
        (lambda: parse_getconf("-1\n", "CLK_TCK"), "not positive"),
        (lambda: parse_getconf("undefined\n", "PAGESIZE"), "getconf PAGESIZE"),
    ],
)
def test_bad_text_names_the_file_and_the_problem(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ProcTextError, match=re.escape(message)):
        call()


def test_loadavg_and_uptime() -> None:
    assert parse_loadavg("6.88 4.70 3.11 5/328 31173\n") == 6.88
    assert parse_uptime("72403.35 66967.94\n") == 72403.35


def test_meminfo_counts_reclaimable_slab_as_cache_as_psutil_does() -> None:
    m = parse_meminfo(MEMINFO)
    assert m.total_bytes == 24684096 * 1024
    assert m.available_bytes == 21805052 * 1024
    assert m.cached_bytes == (1425224 + 278420) * 1024


def test_meminfo_without_memavailable_estimates_it() -> None:
    m = parse_meminfo("MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 10 kB\nCached: 200 kB\n")
    assert m.available_bytes == 310 * 1024


def test_net_dev_per_interface_and_total() -> None:
    per = parse_net_dev(NET_DEV)
    assert per["eth0"] == NetTotals(rx_bytes=1000, tx_bytes=2500)
    assert net_totals(per) == NetTotals(rx_bytes=205719026123, tx_bytes=205719027623)


def test_statfs_used_pct_is_psutils() -> None:
    # recorded `stat -f -c '%b %f %a %S' /`; df -P showed 19 % (it rounds up), psutil 18.2
    u = parse_statfs("66053021 61716568 19538863 4096\n")
    assert u == FsUsage(
        blocks=66053021, blocks_free=61716568, blocks_available=19538863, block_size=4096
    )
    used = 66053021 - 61716568
    assert u.used_pct == round(100 * used / (used + 19538863), 1) == 18.2


def test_df_p_gives_the_device_and_the_same_percentage() -> None:
    text = (
        "Filesystem     1024-blocks     Used Available Capacity Mounted on\n"
        "/dev/vda         264212084 17345784  78155480      19% /\n"
    )
    device, usage = parse_df_p(text)
    assert device == "/dev/vda"
    assert usage.used_pct == round(100 * 17345784 / (17345784 + 78155480), 1) == 18.2


def test_empty_filesystem_is_zero_percent_used() -> None:
    assert FsUsage(blocks=0, blocks_free=0, blocks_available=0, block_size=4096).used_pct == 0


def test_proc_stat_counts_fields_after_the_last_parenthesis() -> None:
    s = parse_proc_stat(PID_STAT)
    assert (s.pid, s.state, s.utime_ticks, s.stime_ticks) == (31184, "S", 250, 40)
    assert (s.threads, s.start_ticks, s.rss_pages) == (57, 7240339, 414)


def test_proc_status() -> None:
    s = parse_proc_status(STATUS)
    assert (s.name, s.state, s.threads, s.rss_bytes) == ("java", "S", 57, 8684 * 1024)
    zombie = parse_proc_status("Name:\tjava\nState:\tZ (zombie)\nThreads:\t1\n")
    assert (zombie.state, zombie.rss_bytes) == ("Z", None)


def test_proc_io() -> None:
    io = parse_proc_io(IO)
    assert (io.read_bytes, io.write_bytes) == (4096, 8192)


def test_getconf_and_create_time() -> None:
    assert parse_getconf("100\n", "CLK_TCK") == 100
    assert create_time_s(7240339, 1795464972, 100) == pytest.approx(1795537375.39)


def test_split_headed_takes_each_file_and_skips_unreadable_ones() -> None:
    # `tail -v -n +1 /proc/stat /proc/99999/stat /proc/uptime`: the missing file has no
    # section (tail names it on stderr); an empty line precedes every header but the first
    out = "==> /proc/stat <==\ncpu 1\n\n==> /proc/uptime <==\n5.00 9.00\n"
    names = ["/proc/stat", "/proc/99999/stat", "/proc/uptime"]
    assert split_headed(out, names) == {"/proc/stat": "cpu 1\n", "/proc/uptime": "5.00 9.00\n"}


def test_split_headed_keeps_text_that_looks_like_a_header_of_another_file() -> None:
    out = "==> a <==\n==> b <==\nx\n\n==> c <==\n\n==> d <==\nno newline"
    assert split_headed(out, ["a", "c", "d"]) == {"a": "==> b <==\nx\n", "c": "", "d": "no newline"}
