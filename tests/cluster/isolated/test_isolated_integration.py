"""Real isolated nodes: two Cassandra JVMs, each in its own network namespace on a bridge
and in its own cgroup with half a core; load, cqlsh, nodetool and metrics through the
bridge; nothing left after ``down``, also after casslab itself was SIGKILLed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from casslab.analysis.bottleneck import Bottleneck, diagnose
from casslab.analysis.bottleneck_evidence import LoadFacts, evidence_of
from casslab.analysis.kpis import kpis_from_metrics
from casslab.cluster import cluster_spec, create
from casslab.cluster.backend import Cluster
from casslab.cluster.isolated import network
from casslab.cluster.isolated.isolated_state import isolated_of
from casslab.cluster.local.launch import leftover_pids
from casslab.host.cgroups import MOUNTINFO, Cgroups, join, parse_mountinfo
from casslab.host.cpu_allowance import cpus_allowed
from casslab.metrics.sampling import Recorder
from casslab.metrics.sources import build_sources, targets_from_nodes
from casslab.metrics.store import ParquetSink, load
from casslab.paths import clusters_root
from cli_entry import NEEDS_ENGINE, casslab, flat
from netns_marks import NEEDS_NETNS

pytestmark = [
    pytest.mark.integration,
    *NEEDS_ENGINE,
    *NEEDS_NETNS,
]


@pytest.fixture(scope="module")
def iso() -> Iterator[Cluster]:
    spec = cluster_spec(
        name="iso",
        nodes=2,
        heap="512M",
        isolation="netns",
        cpus=0.5,
        memory="1536MiB",
        jmx_port_base=9100,
    )
    with create(spec, remove_on_exit=True) as cluster:
        yield cluster


def _cgroup_dir(controller: str, relative: str) -> Path:
    hierarchy = parse_mountinfo(MOUNTINFO.read_text())
    assert hierarchy is not None
    return hierarchy.mounts[controller] / relative


def _left_behind(ident: str) -> list[str]:
    hierarchy = parse_mountinfo(MOUNTINFO.read_text())
    assert hierarchy is not None
    cgroups = [str(d) for d in hierarchy.directories(f"casslab/{ident}") if d.exists()]
    return network.namespaces_of(ident) + network.links_of(ident) + cgroups


def test_each_node_has_its_own_namespace_address_and_cgroup(iso: Cluster) -> None:
    host_ns = os.readlink("/proc/self/ns/net")
    namespaces = set()
    for node in iso.nodes:
        assert node.pid is not None
        assert node.cgroup is not None
        namespaces.add(os.readlink(f"/proc/{node.pid}/ns/net"))
        memberships = Path(f"/proc/{node.pid}/cgroup").read_text()
        assert f":cpu:/{node.cgroup}\n" in memberships
        assert f":memory:/{node.cgroup}\n" in memberships
        quota = _cgroup_dir("cpu", node.cgroup) / "cpu.cfs_quota_us"
        assert quota.read_text().strip() == "50000"
        limit = _cgroup_dir("memory", node.cgroup) / "memory.limit_in_bytes"
        assert int(limit.read_text()) == 1536 * 2**20
        assert "-XX:ActiveProcessorCount=1" in psutil.Process(node.pid).cmdline()
    assert host_ns not in namespaces
    assert len(namespaces) == 2
    # nothing of the nodes listens in the host's namespace: only on the bridge
    listening = {c.laddr.ip for c in psutil.net_connections("tcp") if c.status == "LISTEN"}
    assert not listening & {n.address for n in iso.nodes}
    # the JVM sees its limits (container support reads the cgroup it starts in)
    record = isolated_of(iso.state)
    cgroups = Cgroups.detect(record.cgroup_root, record.limits)
    shown = subprocess.run(
        [str(iso.state.java), "-XshowSettings:system", "-version"],
        preexec_fn=join(cgroups.procs_files(1)),
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    assert "Memory Limit: 1.50G" in shown
    assert "CPU Quota: 50000us" in shown
    views = iso.status()
    assert {(v.isolation, v.limits) for v in views} == {("netns", "0.5cpu 1536M")}


def _engine_pid(parent: int) -> int:
    """The load engine under a ``casslab stress`` process, once it has started."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        for child in psutil.Process(parent).children(recursive=True):
            if child.name() == "casslab-engine":
                return child.pid
        time.sleep(0.1)
    raise AssertionError("casslab stress started no load engine in 20 s")


@pytest.mark.measuring  # the node's CPU use between 0.2 and 0.55 cores
def test_load_through_the_bridge_is_held_to_half_a_core(iso: Cluster, tmp_path: Path) -> None:
    """The nodes use at most their half core, their metrics record that quota (0.5 CPU each),
    and the diagnosis of the load's metrics (the nodes' cgroups against their recorded quota,
    the host, the engine) names the nodes' CPU limit, not the engine."""
    usage = [_cgroup_dir("cpuacct", n.cgroup or "") / "cpuacct.usage" for n in iso.nodes]
    nodes = ",".join(n.address for n in iso.nodes)
    stress = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "casslab",
            "stress",
            "write",
            "duration=14s",
            "-rate",
            "threads=16",
            "-node",
            nodes,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    sources = build_sources(
        targets_from_nodes(iso.nodes), engine_pid=_engine_pid(stress.pid), use_jmx=False, cql=False
    )
    with Recorder(sources, ParquetSink(tmp_path / "metrics.parquet")):
        time.sleep(5)  # past the engine's connection and the first seconds of load
        before, start, since = [int(p.read_text()) for p in usage], time.monotonic(), time.time()
        time.sleep(6)
        after, elapsed = [int(p.read_text()) for p in usage], time.monotonic() - start
        until = time.time()
    out, _ = stress.communicate(timeout=60)
    assert stress.returncode == 0, out
    assert "Total errors              :          0" in out
    for b, a in zip(before, after, strict=True):
        cores = (a - b) / 1e9 / elapsed
        assert 0.2 < cores <= 0.55, f"a node limited to 0.5 CPU used {cores:.2f} cores"
    frame = load(tmp_path / "metrics.parquet")
    quota = frame[frame["metric"] == "cgroup.cpu_limit_cpus"]
    assert set(quota["node"]) == {n.address for n in iso.nodes}  # sampled for each node
    assert set(quota["value"]) == {0.5}
    kpis = kpis_from_metrics(frame, start=since, end=until)
    assert [kpis.get(f"node{n}.container_cpu_limit_cpus") for n in (1, 2)] == [0.5, 0.5]
    facts = LoadFacts(  # the nodes' quota is not given: the records hold it
        window_s=until - since,
        nodes=len(iso.nodes),
        host_cores=float(os.cpu_count() or 1),
        engine_cores=cpus_allowed(),
    )
    evidence = evidence_of(kpis, None, facts)
    found = diagnose(evidence)
    rate = next((line for line in out.splitlines() if line.startswith("Op rate")), "")
    seen = f"{found.describe()}; all: {found.findings}; evidence: {evidence}; {rate}"
    print(seen)
    assert evidence.engine_cpu_pct is not None, seen  # the engine was measured, and had room
    assert found.primary is Bottleneck.NODE_CPU, seen
    assert "of its 0.5 CPU limit" in found.findings[0].evidence, seen
    assert Bottleneck.ENGINE not in {f.bottleneck for f in found.findings}, seen


def test_cqlsh_and_nodetool_reach_the_nodes_through_the_bridge(iso: Cluster) -> None:
    shell = casslab(
        None, "cqlsh", "2", "--name", "iso", "-e", "SELECT listen_address FROM system.local"
    )
    assert shell.returncode == 0, shell.stderr
    assert iso.node(2).address in shell.stdout
    ring = iso.nodetool(1, "status")
    assert all(f"UN  {n.address}" in ring for n in iso.nodes)


def test_the_metrics_read_jmx_cgroup_and_namespace_of_every_node(iso: Cluster) -> None:

    sources = list(build_sources(targets_from_nodes(iso.nodes)))
    try:
        for source in sources:
            source.sample(time.time())
        time.sleep(1.0)
        names: dict[str, set[str]] = {}
        for source in sources:
            for sample in source.sample(time.time()):
                names.setdefault(sample.node, set()).add(f"{source.name}:{sample.metric}")
    finally:
        for source in sources:
            source.close()
    for node in iso.nodes:
        seen = names[node.address]
        assert {"cgroup:cgroup.cpu_usage_pct", "cgroup:cgroup.memory_limit_bytes"} <= seen
        assert {"netns:netns.rx_bytes_per_s", "netns:netns.tx_bytes_per_s"} <= seen
        assert any(m.startswith("jmx:") for m in seen), sorted(seen)  # JMX over the bridge


def test_down_leaves_no_namespace_veth_bridge_or_cgroup(iso: Cluster) -> None:
    ident = isolated_of(iso.state).cluster_id
    assert _left_behind(ident)  # while it runs, it has all of them
    down = casslab(None, "down", "--name", "iso")
    assert down.returncode == 0, down.stderr
    assert _left_behind(ident) == []
    assert leftover_pids(clusters_root() / "iso") == []
    # the stopped cluster keeps its subnet: a blackhole route, so its addresses never
    # leave the host by the default route
    bridge = isolated_of(iso.state).bridge
    assert bridge is not None
    held = network.ip("route", "show", "type", "blackhole")
    assert f"blackhole {network.subnet_of(bridge)}" in held


def test_a_sigkilled_up_leaves_state_that_down_removes(tmp_path: Path) -> None:
    env = {**os.environ, "CASSLAB_HOME": str(tmp_path)}
    up = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "casslab",
            "up",
            "--name",
            "killed",
            "--isolation",
            "netns",
            "--cpus",
            "0.5",
            "--heap",
            "512M",
            "--jmx-port-base",
            "9110",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    directory = tmp_path / "clusters" / "killed"
    deadline = time.monotonic() + 60
    while not leftover_pids(directory) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert leftover_pids(directory), "the node's JVM never started"
    os.kill(up.pid, signal.SIGKILL)  # no clean-up runs: the node, its namespace and cgroup stay
    up.wait()
    from casslab.cluster.isolated.cluster import cluster_id

    ident = cluster_id(directory)
    assert _left_behind(ident)
    down = casslab(tmp_path, "down", "--name", "killed")
    assert down.returncode == 0, flat(down.stderr)
    assert leftover_pids(directory) == []
    assert _left_behind(ident) == []
    subnet = json.loads((directory / "state.json").read_text())["backend_state"]["bridge"]
    assert casslab(tmp_path, "down", "--remove", "--name", "killed").returncode == 0
    held = network.ip("route", "show", "type", "blackhole")
    assert f"{subnet['address'].rsplit('.', 1)[0]}.0/{subnet['prefix']}" not in held
