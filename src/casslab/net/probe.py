"""Round-trip times between nodes, measured as the time a TCP connect takes (the SYN and
its SYN-ACK: one round trip, no application in the way), from inside a node's network
namespace to another node's storage port.

``python -m casslab.net.probe HOST PORT COUNT INTERVAL_S`` prints the RTTs in ms as JSON;
:func:`measure` runs it inside a namespace (``nsenter --net``) at real-time priority when
it can, so the host's load does not add its own scheduling delay to what is measured.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

from casslab.errors import ClusterError
from casslab.record import Record

NETNS_DIR = "/run/netns"


class RttSummary(Record):
    """RTTs of one probe run, in ms; ``lost`` connects that failed or timed out."""

    count: int
    lost: int
    min_ms: float | None
    p50_ms: float | None
    max_ms: float | None


def summarize(rtts: Sequence[float | None]) -> RttSummary:
    got = sorted(r for r in rtts if r is not None)
    return RttSummary(
        count=len(rtts),
        lost=len(rtts) - len(got),
        min_ms=got[0] if got else None,
        p50_ms=statistics.median(got) if got else None,
        max_ms=got[-1] if got else None,
    )


def connect_rtts(host: str, port: int, count: int, interval_s: float) -> list[float | None]:
    """``count`` TCP connects to ``host:port``, ``interval_s`` apart: each one's time in
    ms, None for one that failed within 2 s."""
    out: list[float | None] = []
    for index in range(count):
        if index:
            time.sleep(interval_s)
        start = time.perf_counter()
        try:
            with socket.create_connection((host, port), timeout=2.0):
                out.append((time.perf_counter() - start) * 1000)
        except OSError:
            out.append(None)
    return out


def measure(
    netns: str | None, host: str, port: int, count: int = 10, interval_s: float = 0.05
) -> list[float | None]:
    """:func:`connect_rtts` run inside namespace ``netns`` (None: here)."""
    command = [sys.executable, "-m", "casslab.net.probe", host, str(port), str(count)]
    command.append(str(interval_s))
    if netns is not None:
        command = ["nsenter", f"--net={NETNS_DIR}/{netns}", "--", *command]
    if os.geteuid() == 0 and shutil.which("chrt"):
        command = ["chrt", "-f", "10", *command]
    result = subprocess.run(
        command, capture_output=True, text=True, check=False, timeout=30 + count * 3
    )
    if result.returncode != 0:
        raise ClusterError(f"the RTT probe to {host}:{port} failed: {result.stderr.strip()}")
    values: list[float | None] = json.loads(result.stdout)
    return values


def main(argv: Sequence[str]) -> int:
    host, port, count, interval = argv[0], int(argv[1]), int(argv[2]), float(argv[3])
    print(json.dumps(connect_rtts(host, port, count, interval)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
