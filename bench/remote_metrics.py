"""What one agentless sample costs: the host and process samplers of one host reading
/proc over SSH (one command an instant), against the psutil samplers reading the same host
and process here, measured in the same run.

Makes an SSH lab of one namespaced host (:class:`ssh_testbed.SshLab`, needs
root and sshd), starts ``sleep`` there as the ssh backend starts a node, then samples that
host and process ``--samples`` times, ``--every`` seconds apart, with three sets of
samplers: psutil (HostSource + ProcessSource), agentless through LocalProcReader (the same
parsing, no SSH), and agentless over real SSH: SshProcReader (one command a reading) and
SessionProcReader (one long-lived shell answering every reading). For each: wall ms an
instant (median and 90th percentile) and CPU ms of this process an instant (every thread:
paramiko's transport thread too), and the ratio to psutil. For SSH also: round trips an
instant, the CPU the host spent answering (sshd, the shell with its rc files, tail), and
the cost of an empty command (``true``): the session's own part of each one-command
sample. Usage::

    .venv/bin/python bench/remote_metrics.py [--samples 30] [--every 0.2]
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import psutil

from casslab.metrics.host import HostSource
from casslab.metrics.proc_reader import LocalProcReader, ProcRead, ProcReader
from casslab.metrics.proc_session import ChannelSession, SessionProcReader
from casslab.metrics.proc_ssh import SshProcReader
from casslab.metrics.process import ProcessSource
from casslab.metrics.remote import RemoteHostSource, RemoteNode, RemoteProcessSource
from casslab.metrics.source import NodeTarget, Source
from casslab.metrics.sources import build_sources
from casslab.remote.inventory import load_inventory
from casslab.remote.ssh import RemoteHost

# The SSH test bed (OpenSSH servers in network namespaces) is the tests' own.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ssh_testbed import SshLab, missing_tools, namespace_pids


class Counting:
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


def _measure(
    sources: Sequence[Source], samples: int, every_s: float
) -> tuple[list[float], list[float]]:
    """Wall and CPU ms of this process for each instant after the first (which sets the
    rates' baselines and, over SSH, tells the batch what to read)."""
    walls: list[float] = []
    cpus: list[float] = []
    for i in range(samples + 1):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        now = time.time()
        for s in sources:
            s.sample(now)
        if i > 0:
            walls.append(1000 * (time.perf_counter() - wall0))
            cpus.append(1000 * (time.process_time() - cpu0))
        time.sleep(every_s)
    return walls, cpus


def _host_cpu_s(namespace: str) -> float:
    """CPU seconds of the lab host's processes and of their ended children."""
    total = 0.0
    for pid in namespace_pids(namespace):
        try:
            t = psutil.Process(pid).cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--every", type=float, default=0.2)
    args = parser.parse_args()
    reason = missing_tools()
    if reason is not None:
        raise SystemExit(f"cannot make an SSH lab here: {reason}")
    with SshLab(1, login_rc=True) as lab:  # each command's bash reads root's ~/.bashrc
        lab_host = lab.hosts[0]
        inventory = load_inventory(lab.inventory())
        with RemoteHost.connect(inventory.hosts[0], inventory) as remote:
            log = str(Path(lab_host.base_dir) / "sleep.log")
            proc = remote.spawn(["sleep", "600"], log_path=log)
            try:
                rows: list[tuple[str, list[float], list[float]]] = []
                notes: list[str] = []
                data_dir = lab_host.base_dir
                psutil_sources: list[Source] = [
                    HostSource(["h1"], data_dir),
                    ProcessSource("h1", proc.pid),
                ]
                rows.append(("psutil", *_measure(psutil_sources, args.samples, args.every)))
                local = LocalProcReader()
                local_sources: list[Source] = [
                    RemoteHostSource(["h1"], data_dir, local),
                    RemoteProcessSource("h1", proc.pid, local, start_ticks=proc.start_ticks),
                ]
                rows.append(("here, no SSH", *_measure(local_sources, args.samples, args.every)))
                command = SshProcReader(remote, remote.host.label)
                session = SessionProcReader(
                    lambda argv: ChannelSession(remote.open_channel(argv)), command
                )
                target = NodeTarget(address=lab_host.address, pid=proc.pid, data_dir=data_dir)
                for name, reader in (("SSH, command", command), ("SSH, session", session)):
                    counting = Counting(reader)
                    node = RemoteNode(counting, start_ticks=proc.start_ticks)
                    ssh_sources = build_sources(
                        [target], use_jmx=False, cql=False, remote={lab_host.address: node}
                    )
                    _measure(ssh_sources, 0, 0.0)  # the batch learns what to read
                    reads0, host0 = counting.reads, _host_cpu_s(lab_host.namespace)
                    rows.append((name, *_measure(ssh_sources, args.samples, args.every)))
                    reads = (counting.reads - reads0) / (args.samples + 1)
                    host_ms = 1000 * (_host_cpu_s(lab_host.namespace) - host0) / (args.samples + 1)
                    notes.append(
                        f"{name}: {reads:.2f} round trips an instant; the host spent "
                        f"{host_ms:.1f} CPU ms an instant answering"
                    )
                session.close()
                empty = _timed(lambda: remote.run(["true"]), args.samples)
            finally:
                remote.signal(proc, signal.SIGKILL)
    base_wall = statistics.median(rows[0][1])
    base_cpu = statistics.median(rows[0][2])
    print(f"one host + one process, {args.samples} instants {args.every:g} s apart")
    print(f"{'samplers':<18}{'wall ms':>9}{'p90':>8}{'x psutil':>10}{'CPU ms':>9}{'x psutil':>10}")
    for name, walls, cpus in rows:
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(
            f"{name:<18}{wall:>9.2f}{_p90(walls):>8.2f}{wall / base_wall:>10.1f}"
            f"{cpu:>9.2f}{cpu / base_cpu:>10.1f}"
        )
    for note in notes:
        print(note)
    print(
        f"an empty command (`true`) takes {statistics.median(empty):.1f} ms (median): the "
        "SSH session's own part of each one-command sample (sshd, the login shell, its rc files)"
    )


def _timed(call: Callable[[], object], count: int) -> list[float]:
    out = []
    for _ in range(count):
        t0 = time.perf_counter()
        call()
        out.append(1000 * (time.perf_counter() - t0))
    return out


if __name__ == "__main__":
    main()
