"""What casslab or its tests left running on this machine: Cassandra JVMs casslab started,
load engines, the test bed's sshd servers, network namespaces, bridges, veth pairs and WAN
taps, cgroups. `make test` runs it after the suite and fails when anything is listed: the
suite stops everything it starts, also when a test fails. Nothing is stopped here: it
only lists, with each process's PID.

    python scripts/leftovers.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import psutil

NETNS_DIR = Path("/run/netns")
SYS_NET = Path("/sys/class/net")
CGROUP_ROOT = Path("/sys/fs/cgroup")
# names casslab gives: isolated clusters (cluster/isolated/network.py: clb, clv, clw,
# casslab-), the SSH test bed (csb, csv, clssh), the network sampler's test (clt, casslab-t-)
LINK_PREFIXES = ("clb", "clv", "clw", "csb", "csv", "clt")
NAMESPACE_PREFIXES = ("casslab-", "clssh")


def processes(own: int) -> list[str]:
    """Cassandra JVMs started by casslab (their -Dcasslab.node marker or a casslab
    storage directory), casslab-engine processes and sshd of casslab's test hosts."""
    found: list[str] = []
    for process in psutil.process_iter(["pid", "ppid", "name", "cmdline"]):
        info = process.info
        if info["pid"] == own:
            continue
        argv = info["cmdline"] or []
        text = " ".join(argv)
        if "-Dcasslab.node=" in text or ("CassandraDaemon" in text and "casslab" in text):
            found.append(f"Cassandra JVM pid {info['pid']}: {text[:160]}")
        elif argv and Path(argv[0]).name == "casslab-engine":
            found.append(f"load engine pid {info['pid']}: {text[:160]}")
        elif argv and Path(argv[0]).name == "sshd" and "casslab" in text:
            found.append(f"test sshd pid {info['pid']}: {text[:160]}")
    return found


def namespaces() -> list[str]:
    if not NETNS_DIR.is_dir():
        return []
    return [
        f"network namespace {p.name}"
        for p in sorted(NETNS_DIR.iterdir())
        if p.name.startswith(NAMESPACE_PREFIXES)
    ]


def links() -> list[str]:
    if not SYS_NET.is_dir():
        return []
    return [
        f"network interface {p.name}"
        for p in sorted(SYS_NET.iterdir())
        if p.name.startswith(LINK_PREFIXES)
    ]


def cgroups() -> list[str]:
    found: list[str] = []
    if not CGROUP_ROOT.is_dir():
        return found
    for hierarchy in sorted(CGROUP_ROOT.iterdir()):
        # casslab-tests: a test process's own, for its CPU-seconds (tests/cpu_accounting.py)
        for candidate in (
            hierarchy / "casslab",
            CGROUP_ROOT / "casslab",
            hierarchy / "casslab-tests",
        ):
            if candidate.is_dir():
                found += [f"cgroup {d}" for d in sorted(candidate.iterdir()) if d.is_dir()]
    return sorted(set(found))


def main() -> int:
    left = [*processes(os.getpid()), *namespaces(), *links(), *cgroups()]
    if not left:
        print("leftovers: none (no casslab JVM, engine, sshd, namespace, link or cgroup)")
        return 0
    print(f"leftovers: {len(left)} thing(s) casslab or its tests left behind:")
    for line in left:
        print(f"  {line}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
