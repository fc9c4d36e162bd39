"""Pure parsers of the Linux /proc text the agentless samplers read (text in, typed
records out), and of the few command outputs that go with it (``stat -f``, ``df -P``,
``getconf``, ``tail -v``).

Each parser follows what psutil reads from the same file, so the remote samplers of
:mod:`casslab.metrics.remote` report what :class:`~casslab.metrics.host.HostSource` and
:class:`~casslab.metrics.process.ProcessSource` report here. Bad text raises
:class:`ProcTextError` naming the file and what was wrong; nothing here reads a file.
The /proc/diskstats parser is :func:`casslab.metrics.rates.parse_diskstats`.
"""

from __future__ import annotations

from collections.abc import Sequence

from casslab.errors import MetricsError
from casslab.metrics.rates import CpuTimes
from casslab.record import Record


class ProcTextError(MetricsError):
    """Text that is not what the kernel (or the command) writes there."""


class MemInfo(Record):
    """/proc/meminfo, in bytes, as psutil.virtual_memory reads it."""

    total_bytes: int
    available_bytes: int
    cached_bytes: int  # Cached + SReclaimable, as free(1) and psutil count it


class NetTotals(Record):
    """Bytes received and sent, summed over every interface of /proc/net/dev (lo too, as
    psutil.net_io_counters sums them)."""

    rx_bytes: int
    tx_bytes: int


class FsUsage(Record):
    """The filesystem holding a path, from statvfs(2) (``stat -f`` or ``os.statvfs``)."""

    blocks: int  # f_blocks
    blocks_free: int  # f_bfree: free to root
    blocks_available: int  # f_bavail: free to users
    block_size: int  # f_frsize, the fundamental block size

    @property
    def used_pct(self) -> float:
        """Used space, % of what users can have, rounded to 0.1 (psutil.disk_usage, df)."""
        used = self.blocks - self.blocks_free
        total_user = used + self.blocks_available
        return 0.0 if total_user <= 0 else round(100.0 * used / total_user, 1)


class ProcStat(Record):
    """The fields of /proc/<pid>/stat casslab uses (times in clock ticks)."""

    pid: int
    state: str  # R, S, D, Z, T...
    utime_ticks: int  # field 14
    stime_ticks: int  # field 15
    threads: int  # field 20
    start_ticks: int  # field 22: start time after boot; with the PID, the process's identity
    rss_pages: int  # field 24 (summed from other counters than status's VmRSS and psutil's)


class ProcStatus(Record):
    """The fields of /proc/<pid>/status casslab uses."""

    name: str
    state: str
    threads: int
    rss_bytes: int | None  # VmRSS; absent for a zombie and kernel threads


class ProcIo(Record):
    """/proc/<pid>/io: bytes the process caused to be read from and written to storage."""

    read_bytes: int
    write_bytes: int


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ProcTextError(f"{what}: {text!r} is not an integer") from None


def parse_getconf(text: str, name: str) -> int:
    """The positive number ``getconf NAME`` printed (``CLK_TCK``, ``PAGESIZE``)."""
    value = _int(text.strip(), f"getconf {name}")
    if value <= 0:
        raise ProcTextError(f"getconf {name}: {value} is not positive")
    return value


def _stat_fields(text: str, first: str) -> list[str] | None:
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == first:
            return fields
    return None


def parse_cpu_times(text: str, clk_tck: int) -> CpuTimes:
    """Host CPU seconds (summed over CPUs) from the ``cpu`` line of /proc/stat."""
    fields = _stat_fields(text, "cpu")
    if fields is None or len(fields) < 5:
        raise ProcTextError("/proc/stat: no `cpu` line with user, nice, system and idle times")
    ticks = [_int(f, "/proc/stat cpu") for f in fields[1:9]]
    ticks += [0] * (8 - len(ticks))  # iowait, irq, softirq, steal: absent on old kernels
    return CpuTimes(*(t / clk_tck for t in ticks))


def count_cpus(text: str) -> int:
    """Online CPUs: the ``cpuN`` lines of /proc/stat (what sysconf(_SC_NPROCESSORS_ONLN),
    hence psutil.cpu_count, counts)."""
    n = sum(1 for line in text.splitlines() if line.startswith("cpu") and line[3:4].isdigit())
    if n == 0:
        raise ProcTextError("/proc/stat: no `cpuN` line")
    return n


def parse_boot_time(text: str) -> int:
    """Boot time, Unix seconds, from the ``btime`` line of /proc/stat."""
    fields = _stat_fields(text, "btime")
    if fields is None or len(fields) < 2:
        raise ProcTextError("/proc/stat: no `btime` line")
    return _int(fields[1], "/proc/stat btime")


def parse_loadavg(text: str) -> float:
    """The one-minute load average, first field of /proc/loadavg."""
    fields = text.split()
    try:
        return float(fields[0])
    except (IndexError, ValueError):
        raise ProcTextError(f"/proc/loadavg: {text.strip()!r} has no load average") from None


def parse_uptime(text: str) -> float:
    """Seconds since boot, first field of /proc/uptime (0.01 s resolution)."""
    fields = text.split()
    try:
        return float(fields[0])
    except (IndexError, ValueError):
        raise ProcTextError(f"/proc/uptime: {text.strip()!r} has no uptime") from None


def parse_meminfo(text: str) -> MemInfo:
    """Total, available and cached memory from /proc/meminfo (kB lines)."""
    kb: dict[str, int] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0].endswith(":"):
            kb[fields[0][:-1]] = _int(fields[1], f"/proc/meminfo {fields[0]}")
    if "MemTotal" not in kb or "MemFree" not in kb:
        raise ProcTextError("/proc/meminfo: no MemTotal or MemFree line")
    cached = kb.get("Cached", 0) + kb.get("SReclaimable", 0)
    # MemAvailable since Linux 3.14; before, psutil's older estimate: free + buffers + cached.
    available = kb.get("MemAvailable", kb["MemFree"] + kb.get("Buffers", 0) + cached)
    return MemInfo(
        total_bytes=kb["MemTotal"] * 1024,
        available_bytes=available * 1024,
        cached_bytes=cached * 1024,
    )


def parse_net_dev(text: str) -> dict[str, NetTotals]:
    """Bytes received and sent per interface, from /proc/net/dev."""
    out: dict[str, NetTotals] = {}
    for line in text.splitlines()[2:]:
        name, colon, rest = line.rpartition(":")
        fields = rest.split()
        if not colon or len(fields) < 9:
            raise ProcTextError(f"/proc/net/dev: line {line.strip()!r} is not `name: counters`")
        out[name.strip()] = NetTotals(
            rx_bytes=_int(fields[0], f"/proc/net/dev {name.strip()} rx"),
            tx_bytes=_int(fields[8], f"/proc/net/dev {name.strip()} tx"),
        )
    return out


def net_totals(per_interface: dict[str, NetTotals]) -> NetTotals:
    """The sum over every interface."""
    return NetTotals(
        rx_bytes=sum(n.rx_bytes for n in per_interface.values()),
        tx_bytes=sum(n.tx_bytes for n in per_interface.values()),
    )


STATFS_FORMAT = "%b %f %a %S"
"""``stat -f -c`` format: total blocks, free blocks, blocks free to users, fundamental
block size; :func:`parse_statfs` reads it."""


def parse_statfs(text: str) -> FsUsage:
    """``stat -f -c '%b %f %a %S' PATH`` output."""
    fields = text.split()
    if len(fields) != 4:
        raise ProcTextError(f"stat -f: {text.strip()!r} is not `blocks free available size`")
    b, f, a, s = (_int(x, "stat -f") for x in fields)
    return FsUsage(blocks=b, blocks_free=f, blocks_available=a, block_size=s)


def parse_df_p(text: str) -> tuple[str, FsUsage]:
    """The device and usage of ``df -P PATH`` output (1024-byte blocks). Used and available
    are all it tells, so ``blocks_free`` is total - used (root's reserve is not told apart:
    :attr:`FsUsage.used_pct` is still df's and psutil's percentage)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        raise ProcTextError(f"df -P: {text.strip()!r} has no filesystem line")
    fields = lines[-1].split()
    if len(fields) < 6:
        raise ProcTextError(f"df -P: {lines[-1]!r} is not `device blocks used available`")
    total, used, avail = (_int(x, "df -P") for x in fields[1:4])
    return fields[0], FsUsage(
        blocks=total, blocks_free=total - used, blocks_available=avail, block_size=1024
    )


def parse_proc_stat(text: str) -> ProcStat:
    """/proc/<pid>/stat. The command name (field 2) is in parentheses and may hold spaces
    and parentheses itself: the fields after it are counted from the last ``)``."""
    head, sep, tail = text.rpartition(")")
    rest = tail.split()
    if not sep or "(" not in head or len(rest) < 22:
        raise ProcTextError(f"/proc/<pid>/stat: {text.strip()[:80]!r} is not a stat line")
    # rest[0] is field 3 (state): field n is rest[n - 3]
    return ProcStat(
        pid=_int(head.split("(", 1)[0].strip(), "/proc/<pid>/stat pid"),
        state=rest[0],
        utime_ticks=_int(rest[11], "/proc/<pid>/stat utime"),
        stime_ticks=_int(rest[12], "/proc/<pid>/stat stime"),
        threads=_int(rest[17], "/proc/<pid>/stat num_threads"),
        start_ticks=_int(rest[19], "/proc/<pid>/stat starttime"),
        rss_pages=_int(rest[21], "/proc/<pid>/stat rss"),
    )


def parse_proc_status(text: str) -> ProcStatus:
    """/proc/<pid>/status (``Key:\\tvalue`` lines)."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            values[key] = value.strip()
    if "Name" not in values or "State" not in values or "Threads" not in values:
        raise ProcTextError("/proc/<pid>/status: no Name, State or Threads line")
    rss = values.get("VmRSS")
    rss_bytes = None
    if rss is not None:
        number, _, unit = rss.partition(" ")
        if unit.strip() != "kB":
            raise ProcTextError(f"/proc/<pid>/status: VmRSS {rss!r} is not in kB")
        rss_bytes = _int(number, "/proc/<pid>/status VmRSS") * 1024
    return ProcStatus(
        name=values["Name"],
        state=values["State"].split()[0],
        threads=_int(values["Threads"], "/proc/<pid>/status Threads"),
        rss_bytes=rss_bytes,
    )


def parse_proc_io(text: str) -> ProcIo:
    """/proc/<pid>/io (``key: value`` lines)."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            values[key.strip()] = value.strip()
    if "read_bytes" not in values or "write_bytes" not in values:
        raise ProcTextError("/proc/<pid>/io: no read_bytes or write_bytes line")
    return ProcIo(
        read_bytes=_int(values["read_bytes"], "/proc/<pid>/io read_bytes"),
        write_bytes=_int(values["write_bytes"], "/proc/<pid>/io write_bytes"),
    )


def create_time_s(start_ticks: int, boot_time_s: float, clk_tck: int) -> float:
    """A process's start as Unix seconds (psutil's create_time): boot time plus field 22
    of its stat over the clock ticks."""
    return boot_time_s + start_ticks / clk_tck


def header(name: str) -> str:
    """The line ``tail -v`` (and ``head -v``) prints before each file: ``==> name <==``."""
    return f"==> {name} <=="


def split_headed(text: str, names: Sequence[str]) -> dict[str, str]:
    """The text of each file in ``tail -v -n +1 NAME...`` output, by name; a file the
    command could not read (a /proc/<pid> that ended) has no header and is left out.

    Only the lines that are exactly the header of one of ``names`` start a file, so a file
    holding a line like ``==> x <==`` is not cut there. Before every header but the first,
    tail writes an empty line; it is taken off the file before it."""
    wanted = {header(n): n for n in names}
    out: dict[str, str] = {}
    current: str | None = None
    lines: list[str] = []
    for line in text.splitlines(keepends=True):
        name = wanted.get(line.rstrip("\n"))
        if name is None:
            lines.append(line)
            continue
        if current is not None:
            body = "".join(lines)
            out[current] = body[:-1] if body.endswith("\n") else body
        current, lines = name, []
    if current is not None:
        out[current] = "".join(lines)
    return out
