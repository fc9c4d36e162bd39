"""Benchmark: deploying the Cassandra distribution over SSH (issue 17, the ssh backend).

In one SSH lab of 3 hosts (network namespaces each running a real OpenSSH server, see
:mod:`ssh_testbed` (tests/ssh_testbed.py)), with the distribution from the local cache:

- baseline: a plain SFTP copy of the same bytes (the tar stream of ``lib/``) to one host
  (paramiko's ``putfo``, no checks);
- fresh: :func:`casslab.cluster.ssh.deploy.deploy_distribution` to the 3 hosts at once
  (tar stream, unpacked, every file's sha256 checked on the host, moved into place);
- present: the same again, when every host already holds it (sums compared, every file
  checked, nothing sent).

Each is repeated ``--repeat`` times (fresh: on a wiped dist folder); the medians are
printed with their ratio to the baseline. ``--start`` also times ``casslab``'s start of a
3-node cluster (heap 512M) on the lab, jars already there.

    .venv/bin/python bench/ssh_deploy.py [--repeat 3] [--start]

Needs root and sshd (``make ssh``).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from casslab.cluster import distribution
from casslab.cluster.ssh import deploy
from casslab.remote.inventory import load_inventory
from casslab.remote.ssh import RemoteHost

# The SSH test bed (OpenSSH servers in network namespaces) is the tests' own.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ssh_testbed import SshLab, missing_tools


def _timed(work: Callable[[], object]) -> float:
    start = time.monotonic()
    work()
    return time.monotonic() - start


def _parallel(hosts: list[RemoteHost], work: Callable[[RemoteHost], object]) -> None:
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(len(hosts)) as pool:
        list(pool.map(work, hosts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--start", action="store_true", help="also time a 3-node start")
    args = parser.parse_args()
    reason = missing_tools()
    if reason is not None:
        print(f"skipped: {reason}")
        return 0
    dist = distribution.resolve(None)
    pack = deploy.package(dist.lib_dir)
    mib = len(pack.tar) / 2**20
    print(f"Cassandra {dist.version}: {len(pack.sums.splitlines())} files, {mib:.1f} MiB")
    with SshLab(3) as lab:
        inventory = load_inventory(lab.inventory())
        hosts = [RemoteHost.connect(h, inventory) for h in inventory.hosts]
        try:
            target = f"{lab.hosts[0].base_dir}/plain.tar"
            sftp = hosts[0]._sftp_client()  # the baseline: SFTP alone
            assert sftp is not None, "the lab's sshd serves SFTP"
            baseline = [
                _timed(lambda: sftp.putfo(io.BytesIO(pack.tar), target)) for _ in range(args.repeat)
            ]
            fresh, present = [], []
            for _ in range(args.repeat):
                _parallel(hosts, lambda h: h.run(["rm", "-rf", f"{h.host.base_dir}/dist"]))
                fresh.append(_timed(lambda: _parallel(hosts, lambda h: _deploy(h, dist))))
                present.append(_timed(lambda: _parallel(hosts, lambda h: _deploy(h, dist))))
        finally:
            for host in hosts:
                host.close()
        base = statistics.median(baseline)
        runs = [round(t, 2) for t in baseline]
        print(f"baseline, plain SFTP of {mib:.1f} MiB to 1 host: {base:.2f} s (runs {runs})")
        for label, times in (("fresh, 3 hosts", fresh), ("present, 3 hosts", present)):
            median = statistics.median(times)
            print(
                f"deploy {label}: {median:.2f} s, {median / base:.2f}x the baseline "
                f"(runs {[round(t, 2) for t in times]})"
            )
        if args.start:
            _start(lab)
    return 0


def _deploy(host: RemoteHost, dist: distribution.Distribution) -> None:
    deploy.deploy_distribution(host, dist)


def _start(lab: SshLab) -> None:
    import subprocess

    home = tempfile.mkdtemp(prefix="casslab-bench-")
    env = {**os.environ, "CASSLAB_HOME": home}
    command = [sys.executable, "-m", "casslab"]
    inventory = str(lab.inventory())
    start = time.monotonic()
    result = subprocess.run(
        [*command, "up", "--hosts", inventory, "--name", "bench", "--heap", "512M"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.monotonic() - start
    print(f"casslab up of 3 nodes over SSH (jars present): {took:.1f} s, exit {result.returncode}")
    subprocess.run([*command, "down", "--remove", "--name", "bench"], env=env, check=False)


if __name__ == "__main__":
    sys.exit(main())
