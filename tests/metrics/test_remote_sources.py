"""The agentless host and process samplers on literal /proc readings (figures worked out
by hand), and how build_sources wires them for nodes on another host."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from casslab.metrics.catalogue import names
from casslab.metrics.proc_batch import ProcBatch
from casslab.metrics.proc_reader import HostFacts, ProcRead
from casslab.metrics.proc_text import FsUsage
from casslab.metrics.remote import RemoteHostSource, RemoteNode, RemoteProcessSource
from casslab.metrics.source import NodeTarget, Sample, SourceUnavailableError
from casslab.metrics.sources import build_sources

FACTS = HostFacts(clk_tck=100, page_size=4096, boot_time_s=1_000)


class ScriptedReader:
    """A reader of a host whose /proc holds, at each reading, the next of ``readings``
    (the files it has; a path asked for and not there is absent, as after a process
    ended)."""

    def __init__(self, readings: Sequence[dict[str, str]], fs: FsUsage | None = None) -> None:
        self._readings = list(readings)
        self._fs = fs
        self.asked: list[tuple[list[str], list[str]]] = []

    @property
    def where(self) -> str:
        return "host h1"

    def facts(self) -> HostFacts:
        return FACTS

    def block_device(self, path: str) -> str | None:
        return "vda"

    def read(
        self, paths: Sequence[str], fs: Sequence[str] = (), *, at: float | None = None
    ) -> ProcRead:
        self.asked.append((list(paths), list(fs)))
        files = self._readings.pop(0)
        usage = {d: self._fs for d in fs if self._fs is not None}
        return ProcRead(files={p: files[p] for p in paths if p in files}, fs=usage)


def _host_files(
    uptime: float, cpu: str, disk: str, lo: int, eth_rx: int, eth_tx: int
) -> dict[str, str]:
    return {
        "/proc/uptime": f"{uptime:.2f} 0.00\n",
        "/proc/stat": f"cpu  {cpu} 0 0\ncpu0 0 0 0 0\ncpu1 0 0 0 0\nbtime 1000\n",
        "/proc/loadavg": "1.50 1.00 0.50 2/300 4000\n",
        "/proc/meminfo": (
            "MemTotal: 1000000 kB\nMemFree: 100000 kB\nMemAvailable: 600000 kB\n"
            "Cached: 200000 kB\nSReclaimable: 50000 kB\n"
        ),
        "/proc/diskstats": f"   8  0 sda 1 0 1 1 1 0 1 1 0 1 1\n 254  0 vda {disk}\n",
        "/proc/net/dev": (
            "Inter-|\n face |\n"
            f"    lo: {lo} 0 0 0 0 0 0 0 {lo} 0 0 0 0 0 0 0\n"
            f"  eth0: {eth_rx} 0 0 0 0 0 0 0 {eth_tx} 0 0 0 0 0 0 0\n"
        ),
    }


HOST_1 = _host_files(
    100.0, "1000 0 500 8000 100 0 0 0", "100 0 2000 50 200 0 4000 150 0 300 200", 1000, 5000, 7000
)
# 2 s later: +400 ticks = 2 CPUs x 2 s; user 150 + nice 10, system 30 + softirq 10,
# idle 180, iowait 20
HOST_2 = _host_files(
    102.0,
    "1150 10 530 8180 120 0 10 0",
    "140 0 2800 90 260 0 6000 210 0 700 300",
    2000,
    9000,
    15000,
)
FS = FsUsage(blocks=1000, blocks_free=600, blocks_available=500, block_size=4096)


def _by_metric(samples: list[Sample]) -> dict[str, float]:
    return {s.metric: s.value for s in samples}


def test_host_rates_from_two_readings() -> None:
    reader = ScriptedReader([HOST_1, HOST_2], FS)
    src = RemoteHostSource(["n1", "n2"], "/var/lib/cassandra", reader)
    first = _by_metric(src.sample(5000.0))
    samples = src.sample(5001.0)  # the sampler's clock: the host's uptime gives the 2 s
    assert {s.node for s in samples} == {"n1", "n2"}
    assert {s.time for s in samples} == {5001.0}
    m = _by_metric(samples)
    assert set(m) <= names()
    assert "host.cpu_busy_pct" not in first
    assert "host.net_rx_bytes_per_s" not in first
    assert m == pytest.approx(
        {
            "host.cpu_user_pct": 40.0,
            "host.cpu_system_pct": 10.0,
            "host.cpu_idle_pct": 45.0,
            "host.cpu_iowait_pct": 5.0,
            "host.cpu_steal_pct": 0.0,
            "host.cpu_busy_pct": 50.0,
            "host.cpu_busy_core_pct": 100.0,  # (2 CPUs x 2 s - 2 s idle and iowait) / 2 s
            "host.load_1m": 1.5,
            "host.memory_used_bytes": 400_000 * 1024,
            "host.memory_cached_bytes": 250_000 * 1024,
            "host.memory_available_bytes": 600_000 * 1024,
            "host.disk_used_pct": 44.4,  # 400 used of 400 + 500
            "host.disk_read_bytes_per_s": 800 * 512 / 2,
            "host.disk_write_bytes_per_s": 2000 * 512 / 2,
            "host.disk_reads_per_s": 20.0,
            "host.disk_writes_per_s": 30.0,
            "host.disk_await_ms": 1.0,  # 100 ms over 100 requests
            "host.disk_util_pct": 20.0,  # 400 ms busy of 2000
            "host.net_rx_bytes_per_s": (1000 + 4000) / 2,
            "host.net_tx_bytes_per_s": (1000 + 8000) / 2,
        }
    )
    assert [fs for _, fs in reader.asked] == [["/var/lib/cassandra"]] * 2  # one read a sample


@pytest.mark.parametrize("missing", ["/proc/stat", "/proc/uptime", "/proc/meminfo"])
def test_host_without_a_file_is_a_gap(missing: str) -> None:
    files = {k: v for k, v in HOST_1.items() if k != missing}
    src = RemoteHostSource(["n1"], "/data", ScriptedReader([files], FS))
    with pytest.raises(SourceUnavailableError, match=f"reading {missing} on host h1"):
        src.sample(1.0)


def test_host_whose_disk_usage_cannot_be_told_is_a_gap() -> None:
    src = RemoteHostSource(["n1"], "/data", ScriptedReader([HOST_1], fs=None))
    with pytest.raises(SourceUnavailableError, match="disk usage of /data on host h1"):
        src.sample(1.0)


def _stat(pid: int, utime: int, stime: int, start: int, state: str = "S") -> str:
    return (
        f"{pid} (java) {state} 1 1 1 0 -1 0 0 0 0 0 {utime} {stime} 0 0 20 0 57 0 {start} "
        "3133440 414\n"
    )


def _proc_files(
    pid: int, uptime: float, utime: int, stime: int, io: tuple[int, int], start: int = 7000
) -> dict[str, str]:
    return {
        "/proc/uptime": f"{uptime:.2f} 0.00\n",
        f"/proc/{pid}/stat": _stat(pid, utime, stime, start),
        f"/proc/{pid}/status": "Name:\tjava\nState:\tS (sleeping)\nVmRSS:\t2048 kB\nThreads:\t57\n",
        f"/proc/{pid}/io": f"rchar: 1\nread_bytes: {io[0]}\nwrite_bytes: {io[1]}\n",
    }


def test_process_from_two_readings() -> None:
    reader = ScriptedReader(
        [
            _proc_files(42, 100.0, 1000, 200, (0, 1000)),
            _proc_files(42, 102.0, 1150, 250, (4096, 9192)),
        ]
    )
    src = RemoteProcessSource("n1", 42, reader)
    first = _by_metric(src.sample(10.0))
    assert first == {"process.rss_bytes": 2048 * 1024, "process.threads": 57}
    m = _by_metric(src.sample(11.0))
    assert set(m) <= names()
    assert m == pytest.approx(
        {
            "process.cpu_pct": 100.0,  # 2 CPU s over 2 s of the host's uptime
            "process.cpu_user_pct": 75.0,
            "process.cpu_system_pct": 25.0,
            "process.rss_bytes": 2048 * 1024,  # VmRSS, not stat's 414 pages
            "process.threads": 57,
            "process.read_bytes_per_s": 2048.0,
            "process.write_bytes_per_s": 4096.0,
        }
    )
    assert src.start_ticks == 7000


def test_engine_prefix_reads_cpu_and_rss_only() -> None:
    readings = [_proc_files(42, 100.0, 0, 0, (0, 0)), _proc_files(42, 101.0, 50, 0, (0, 0))]
    reader = ScriptedReader(readings)
    src = RemoteProcessSource("engine", 42, reader, prefix="engine")
    src.sample(1.0)
    m = _by_metric(src.sample(2.0))
    assert m == {
        "engine.cpu_pct": 50.0,
        "engine.cpu_user_pct": 50.0,
        "engine.cpu_system_pct": 0.0,
        "engine.rss_bytes": 2048 * 1024,
    }
    assert "/proc/42/io" not in reader.asked[0][0]


def test_a_recycled_pid_is_never_read_as_the_node() -> None:
    readings = [
        _proc_files(42, 100.0, 1000, 200, (0, 0), start=7000),
        _proc_files(42, 102.0, 5, 1, (0, 0), start=9000),  # the node ended, PID 42 reused
        _proc_files(42, 103.0, 9, 2, (0, 0), start=9000),
    ]
    src = RemoteProcessSource("n1", 42, ScriptedReader(readings))
    src.sample(1.0)
    for now in (2.0, 3.0):
        with pytest.raises(SourceUnavailableError, match="the PID now names another process"):
            src.sample(now)


def test_the_start_time_given_is_checked_from_the_first_reading() -> None:
    reader = ScriptedReader([_proc_files(42, 100.0, 1, 1, (0, 0), start=9000)])
    src = RemoteProcessSource("n1", 42, reader, start_ticks=7000)
    with pytest.raises(
        SourceUnavailableError, match=r"started at Unix time 1090\.00, the node's at 1070\.00"
    ):
        src.sample(1.0)


def test_an_ended_process_is_a_gap() -> None:
    zombie = _proc_files(42, 100.0, 1, 1, (0, 0))
    zombie["/proc/42/stat"] = _stat(42, 1, 1, 7000, state="Z")
    src = RemoteProcessSource("n1", 42, ScriptedReader([zombie, {"/proc/uptime": "1.00 0\n"}]))
    with pytest.raises(SourceUnavailableError, match="zombie"):
        src.sample(1.0)
    with pytest.raises(
        SourceUnavailableError, match="process 42 \\(n1\\) on host h1: no such process"
    ):
        src.sample(2.0)


def test_io_that_is_not_ours_to_read_is_left_out() -> None:
    files = _proc_files(42, 100.0, 1, 1, (0, 0))
    del files["/proc/42/io"]
    later = _proc_files(42, 101.0, 2, 1, (0, 0))
    del later["/proc/42/io"]
    src = RemoteProcessSource("n1", 42, ScriptedReader([files, later]))
    src.sample(1.0)
    assert "process.read_bytes_per_s" not in _by_metric(src.sample(2.0))


def test_build_sources_samples_remote_nodes_through_their_host_s_reader(tmp_path: Path) -> None:
    h1, h2 = ScriptedReader([]), ScriptedReader([])
    targets = [
        NodeTarget(
            address="10.0.0.11",
            pid=100,
            data_dir="/var/lib/casslab/n1/data",
            cgroup="x",
            net_interface="lo",
        ),
        NodeTarget(address="10.0.0.12", pid=200, data_dir="/var/lib/casslab/n2/data"),
        NodeTarget(address="10.0.0.13", data_dir="/var/lib/casslab/n3/data"),  # h1 too, no PID
        NodeTarget(address="127.0.0.1", data_dir=str(tmp_path)),  # a node here
    ]
    remote = {
        "10.0.0.11": RemoteNode(h1, start_ticks=7000),
        "10.0.0.12": RemoteNode(h2),
        "10.0.0.13": RemoteNode(h1),
    }
    sources = build_sources(targets, use_jmx=False, cql=False, remote=remote)
    assert [(type(s).__name__, s.name, s.node) for s in sources] == [
        ("RemoteHostSource", "host", "10.0.0.11,10.0.0.13"),
        ("RemoteProcessSource", "process", "10.0.0.11"),
        ("RemoteHostSource", "host", "10.0.0.12"),
        ("RemoteProcessSource", "process", "10.0.0.12"),
        ("HostSource", "host", "127.0.0.1"),
    ]
    first = sources[1]
    assert isinstance(first, RemoteProcessSource)
    assert first.start_ticks == 7000


class HostAt(ScriptedReader):
    """A host whose /proc holds ``readings[instant]`` however often it is read."""

    def __init__(self, readings: Sequence[dict[str, str]], fs: FsUsage) -> None:
        super().__init__([], fs)
        self.all = list(readings)
        self.instant = 0

    def read(
        self, paths: Sequence[str], fs: Sequence[str] = (), *, at: float | None = None
    ) -> ProcRead:
        self._readings = [self.all[self.instant]]
        return super().read(paths, fs)


def test_a_host_s_samplers_share_one_round_trip_an_instant() -> None:
    procs = [_proc_files(42, 100.0, 1000, 200, (0, 0)), _proc_files(42, 102.0, 1150, 250, (0, 0))]
    host_at = HostAt([HOST_1 | procs[0], HOST_2 | procs[1], HOST_2 | procs[1]], FS)
    targets = [NodeTarget(address="10.0.0.11", pid=42, data_dir="/data")]
    remote = {"10.0.0.11": RemoteNode(host_at)}
    host, process = build_sources(targets, use_jmx=False, cql=False, remote=remote)
    host.sample(1.0)
    process.sample(1.0)
    assert len(host_at.asked) == 2  # the first instant tells the batch what each wants
    host_at.instant = 1
    host_values = _by_metric(host.sample(2.0))
    process_values = _by_metric(process.sample(2.0))
    assert len(host_at.asked) == 3  # then one round trip for both
    paths, fs = host_at.asked[-1]
    assert (set(paths), fs) == (set(HOST_1) | set(procs[0]), ["/data"])
    assert host_values["host.cpu_busy_core_pct"] == pytest.approx(100.0)
    assert process_values["process.cpu_pct"] == pytest.approx(100.0)
    host_at.instant = 2
    process.sample(3.0)  # the process sampler first: it reads, the host sampler shares it
    host.sample(3.0)
    assert len(host_at.asked) == 4
    process.sample(3.1)  # another instant: read anew
    assert len(host_at.asked) == 5


def test_a_reading_for_no_instant_is_not_shared() -> None:
    batch = ProcBatch(HostAt([HOST_1], FS))
    first, second = batch.view(), batch.view()
    first.read(["/proc/stat"], at=1.0)
    second.read(["/proc/stat"], at=1.0)
    assert batch.round_trips == 1
    first.read(["/proc/stat"])
    second.read(["/proc/stat"])
    assert batch.round_trips == 3
