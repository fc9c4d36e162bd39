"""The agentless samplers over real SSH: a namespaced lab host running a real OpenSSH
server (:class:`ssh_testbed.SshLab`). Its /proc/net/dev is its namespace's, so
traffic sent to it shows in its ``host.net_*``; a process started there (as the ssh
backend starts nodes) is sampled, told apart from a recycled PID, and a gap once ended."""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import psutil
import pytest

from casslab.metrics.host import block_device_of
from casslab.metrics.proc_reader import LocalProcReader, ProcRead, ProcReader
from casslab.metrics.proc_session import ChannelSession, Session, SessionProcReader
from casslab.metrics.proc_ssh import SshProcReader
from casslab.metrics.proc_text import parse_net_dev
from casslab.metrics.remote import RemoteHostSource, RemoteNode, RemoteProcessSource
from casslab.metrics.source import NodeTarget, Sample, SourceUnavailableError
from casslab.metrics.sources import build_sources
from casslab.remote.inventory import load_inventory
from casslab.remote.ssh import RemoteHost
from ssh_testbed import LabHost, SshLab, missing_tools, namespace_pids

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools())),
]

TRAFFIC_BYTES = 2 << 20
DATAGRAM_BYTES = 1024


@pytest.fixture(scope="module")
def lab() -> Iterator[SshLab]:
    with SshLab(1) as made:
        yield made


@pytest.fixture(scope="module")
def lab_host(lab: SshLab) -> LabHost:
    return lab.hosts[0]


@pytest.fixture(scope="module")
def remote(lab: SshLab) -> Iterator[RemoteHost]:
    inventory = load_inventory(lab.inventory())
    with RemoteHost.connect(inventory.hosts[0], inventory) as connected:
        yield connected


@pytest.fixture(scope="module")
def command_reader(remote: RemoteHost) -> SshProcReader:
    return SshProcReader(remote, remote.host.label)


def _open_session(remote: RemoteHost) -> Callable[[Sequence[str]], Session]:
    return lambda argv: ChannelSession(remote.open_channel(argv))


@pytest.fixture(scope="module", params=["one command a reading", "one session"])
def reader(
    request: pytest.FixtureRequest, remote: RemoteHost, command_reader: SshProcReader
) -> Iterator[ProcReader]:
    if request.param == "one command a reading":
        yield command_reader
        return
    session = SessionProcReader(_open_session(remote), command_reader)
    try:
        yield session
    finally:
        session.close()


def _values(samples: list[Sample]) -> dict[str, float]:
    return {s.metric: s.value for s in samples}


def test_the_host_s_facts_and_disk_are_told_over_ssh(
    command_reader: SshProcReader, lab_host: LabHost
) -> None:
    reader = command_reader
    # the lab's hosts share this machine's kernel and files: what it tells must be ours
    assert reader.facts() == LocalProcReader().facts()
    assert reader.block_device(lab_host.base_dir) == block_device_of(lab_host.base_dir)


def test_net_counters_of_the_namespace_rise_with_traffic_sent_to_it(
    reader: ProcReader, lab_host: LabHost
) -> None:
    interfaces = parse_net_dev(reader.read(["/proc/net/dev"]).files["/proc/net/dev"])
    assert set(interfaces) == {"lo", "eth0"}  # the namespace's, not this machine's
    source = RemoteHostSource([lab_host.address], lab_host.base_dir, reader)
    source.sample(time.time())
    time.sleep(0.5)
    quiet = _values(source.sample(time.time()))
    started = time.monotonic()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        payload = b"c" * DATAGRAM_BYTES
        for _ in range(TRAFFIC_BYTES // DATAGRAM_BYTES):
            udp.sendto(payload, (lab_host.address, 9))  # discard port: nobody listens
    time.sleep(max(0.0, 0.5 - (time.monotonic() - started)))
    busy = _values(source.sample(time.time()))
    elapsed = time.monotonic() - started
    assert quiet["host.net_rx_bytes_per_s"] < 256 * 1024  # our SSH readings only
    # every datagram reached eth0 (with its headers): at least the payload in the interval
    assert busy["host.net_rx_bytes_per_s"] * (elapsed + 0.05) >= TRAFFIC_BYTES
    assert busy["host.cpu_busy_core_pct"] >= 0
    assert 0 < busy["host.disk_used_pct"] < 100


class CountingReader:
    """Counts the round trips of the reader it wraps."""

    def __init__(self, reader: ProcReader) -> None:
        self._reader = reader
        self.reads = 0
        self.where = reader.where
        self.facts = reader.facts
        self.block_device = reader.block_device

    def read(
        self, paths: Sequence[str], fs: Sequence[str] = (), *, at: float | None = None
    ) -> ProcRead:
        self.reads += 1
        return self._reader.read(paths, fs, at=at)


def test_a_process_started_in_the_namespace_is_sampled_until_it_ends(
    remote: RemoteHost, reader: ProcReader, lab_host: LabHost
) -> None:
    proc = remote.spawn(
        ["sh", "-c", "while :; do :; done"],
        log_path=str(Path(lab_host.base_dir) / "burn.log"),
    )
    try:
        assert proc.pid in namespace_pids(lab_host.namespace)
        recycled = RemoteProcessSource("h1", proc.pid, reader, start_ticks=proc.start_ticks - 1)
        with pytest.raises(SourceUnavailableError, match="the PID now names another process"):
            recycled.sample(time.time())
        counting = CountingReader(reader)
        target = NodeTarget(address=lab_host.address, pid=proc.pid, data_dir=lab_host.base_dir)
        node = RemoteNode(counting, start_ticks=proc.start_ticks)
        host, process = build_sources(
            [target], use_jmx=False, cql=False, remote={lab_host.address: node}
        )
        here = psutil.Process(proc.pid)  # same machine: psutil sees it too

        def instant() -> tuple[tuple[float, float], dict[str, float], tuple[float, float]]:
            """Samples host and process; this machine's clock and the process's CPU
            seconds (psutil) just before and just after: the reading lies in between."""
            before = (time.monotonic(), sum(here.cpu_times()[:2]))
            now = time.time()
            host.sample(now)
            values = _values(process.sample(now))
            return before, values, (time.monotonic(), sum(here.cpu_times()[:2]))

        b1, _, a1 = instant()
        assert counting.reads == 2  # the first instant: the batch learns what each reads
        time.sleep(0.5)
        b2, got, a2 = instant()
        assert counting.reads == 3  # then one round trip for the host and its process
        # the CPU % lies between the least and the most the bracketing readings allow,
        # widened by the host's uptime resolution (0.01 s) and one 10 ms tick each
        least = 100 * (b2[1] - a1[1]) / (a2[0] - b1[0] + 0.02) - 2
        most = 100 * (a2[1] - b1[1]) / (b2[0] - a1[0] - 0.02) + 2
        assert least <= got["process.cpu_pct"] <= most
        assert got["process.cpu_pct"] > 20  # spins a core; the machine is shared
        assert got["process.rss_bytes"] == here.memory_info().rss
        assert got["process.threads"] == 1
    finally:
        remote.signal(proc, signal.SIGKILL)
    deadline = time.monotonic() + 5.0
    while remote.alive(proc) and time.monotonic() < deadline:
        time.sleep(0.05)
    with pytest.raises(
        SourceUnavailableError, match=f"process {proc.pid} \\({lab_host.address}\\) on root@"
    ):
        process.sample(time.time())
