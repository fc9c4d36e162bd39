"""An experiment on a real host over SSH (``cluster: {hosts: hosts.yaml}``): one "host" (a
network namespace running a real OpenSSH server, :mod:`ssh_testbed` (tests/ssh_testbed.py)) with its
own Cassandra install (``cassandra_home``: nothing copied) and one node started by the
ssh backend; both trials run and
record the host's and the JVM's metrics read from its /proc over SSH and the node's JMX
metrics from a helper run on the host, with their load from
two engines on this machine (``clients: 2``: the trial's count is the sum of theirs); at
the end the run leaves no process and no cluster folder on the host."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from casslab.cluster.distribution import resolve
from cli_entry import NEEDS_ENGINE
from ssh_testbed import SshLab, missing_tools, namespace_pids

pytestmark = [
    pytest.mark.integration,
    *NEEDS_ENGINE,
    pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools())),
]

# a light JVM (tests/jit.py): the test checks where things ran, not how fast
EXPERIMENT = """
name: on-hosts
cluster: {{hosts: {hosts}, heap: 512M, config: {{auto_snapshot: false}},
  jvm_options: ["-XX:TieredStopAtLevel=1", "-Dcassandra.approximate_time_precision_ms=20"]}}
factors: {{threads: [2, 4]}}
preload: "write n=2000 -pop seq=1..2000 -rate threads=8"
workload: "write -pop dist=UNIFORM(1..2000)"
measure: "duration=4s"
iterations: 1
order: sequential
kpis: [op_rate, latency_p99_ms]
clients: 2
"""


def _installed(home: Path) -> str:
    """A Cassandra install at ``home``: the jars of the version casslab runs."""
    shutil.copytree(resolve().lib_dir, home / "lib")
    return str(home)


def _count(work: Path) -> int:
    """The operations one client's own summary counts."""
    for line in (work / "engine.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "summary":
            return int(record["total"]["count"])
    raise AssertionError(f"no summary in {work}")


@pytest.fixture(scope="module")
def lab() -> Iterator[SshLab]:
    with SshLab(1) as made:
        yield made


def test_an_experiment_runs_on_a_host_over_ssh_and_leaves_nothing_there(
    lab: SshLab, tmp_path: Path
) -> None:
    installed = _installed(tmp_path / "opt-cassandra")  # "on the host": one file system
    inventory = lab.inventory(tmp_path / "hosts.yaml", overrides={1: {"cassandra_home": installed}})
    experiment = tmp_path / "on-hosts.yaml"
    experiment.write_text(EXPERIMENT.format(hosts=inventory.name))  # relative to the file
    results = tmp_path / "results"
    command = [sys.executable, "-m", "casslab", "run", str(experiment), "--jvm-warmup", "0"]
    done = subprocess.run(
        [*command, "--results", str(results)],
        capture_output=True,
        text=True,
        env={**os.environ, "CASSLAB_HOME": str(tmp_path / "home")},
        timeout=400,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [run] = (results / "on-hosts").iterdir()
    summaries = sorted(run.glob("trials/*/1/summary.json"))
    rows = [json.loads(p.read_text()) for p in summaries]
    assert [r["status"] for r in rows] == ["ok", "ok"], [r.get("error") for r in rows]
    assert all(r["kpis"]["op_rate"] > 0 for r in rows)
    for path, row in zip(summaries, rows, strict=True):
        counts = [_count(path.parent / "clients" / f"client-{i}") for i in (0, 1)]
        assert row["engine"]["total"]["count"] == sum(counts), counts
        assert min(counts) > 0
        preloaded = [_count(path.parent / "preload" / "clients" / f"client-{i}") for i in (0, 1)]
        assert preloaded == [1000, 1000]  # every trial preloads here: seq=1..2000, shared
    [host] = lab.hosts
    frame = pd.read_parquet(summaries[0].parent / "metrics.parquet")
    mine = frame[frame["node"] == host.address]
    names = set(mine["metric"])
    assert {"host.cpu_user_pct", "host.memory_used_bytes", "process.rss_bytes"} <= names, names
    assert {"cassandra.sstables", "cassandra.gc_pauses"} <= names, names  # JMX on the host
    assert (mine[mine["metric"] == "process.rss_bytes"]["value"] > 100e6).all()  # the JVM's
    assert [p for p in namespace_pids(host.namespace) if p not in lab.sshd_pids()] == []
    assert not list(Path(host.base_dir, "clusters").glob("*"))
    assert not Path(host.base_dir, "dist").exists()  # its own install ran: nothing copied


def test_an_install_of_another_version_on_the_host_is_refused(lab: SshLab, tmp_path: Path) -> None:
    """``cassandra_home`` must hold the cluster's version: what it holds is named, with
    the fixes, and nothing is started or copied."""
    lib = tmp_path / "old-cassandra" / "lib"
    lib.mkdir(parents=True)
    (lib / "apache-cassandra-4.1.3.jar").write_bytes(b"not a jar")
    overrides = {1: {"cassandra_home": str(lib.parent)}}
    inventory = lab.inventory(tmp_path / "hosts.yaml", overrides=overrides)
    done = subprocess.run(
        [sys.executable, "-m", "casslab", "up", "--hosts", str(inventory), "--name", "old"],
        capture_output=True,
        text=True,
        env={**os.environ, "CASSLAB_HOME": str(tmp_path / "home"), "COLUMNS": "300"},
        timeout=120,
    )
    assert done.returncode != 0
    said = " ".join(done.stderr.split())
    assert f"cassandra_home {lib.parent} holds apache-cassandra-4.1.3.jar in lib/" in said, said
    assert "remove cassandra_home to copy the jars" in said, said
    [host] = lab.hosts
    assert [p for p in namespace_pids(host.namespace) if p not in lab.sshd_pids()] == []
    assert not Path(host.base_dir, "dist").exists()
