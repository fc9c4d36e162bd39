"""The Prometheus endpoint for real: the session's shared Cassandra node (emptied before
and after) in the session's CASSLAB_HOME; ``casslab metrics serve`` and ``casslab run
--serve-metrics`` as real processes, scraped over HTTP and parsed with
``prometheus_client``'s parser; SIGINT ends the server and every process it started."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample as PromSample

from casslab.cluster import LocalCluster
from casslab.metrics.catalogue import CATALOGUE, MetricSource
from casslab.metrics.prom_names import (
    ENGINE_INTERVAL_METRICS,
    ERRORS_BY_KIND,
    exposed_name,
    interval_exposed_name,
    label_names,
)
from cli_entry import NEEDS_ENGINE
from shared_clusters import emptied, shared_spec

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

ADDRESS = shared_spec("node").base_address
CLUSTER = shared_spec("node").name
DASHBOARD = Path(__file__).resolve().parents[2] / "dashboards" / "grafana" / "casslab.json"
ENGINE_NAMES = {interval_exposed_name(m) for m in ENGINE_INTERVAL_METRICS}
ENGINE_PROCESS = {exposed_name(m) for m in CATALOGUE if m.source is MetricSource.ENGINE}
ERRORS_BY_KIND_NAME = interval_exposed_name(ERRORS_BY_KIND)  # only when an operation failed


def _dashboard_names() -> set[str]:
    """The metric names the dashboard's panels and variables read."""
    return set(re.findall(r"\bcasslab_[a-zA-Z0-9_]+", DASHBOARD.read_text()))


@pytest.fixture(scope="module")
def node(shared_node: LocalCluster, casslab_home: Path) -> Iterator[tuple[LocalCluster, Path]]:
    """The node, in the CASSLAB_HOME it is returned with, and a table with rows."""
    home = casslab_home
    for cluster in emptied(shared_node):
        session = cluster.session()
        session.execute(
            "CREATE KEYSPACE px WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}"
        )
        session.execute("CREATE TABLE px.t (k int PRIMARY KEY, v text)")
        yield cluster, home
        cluster.close_sessions()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spawn(home: Path, *args: str) -> subprocess.Popen[str]:
    """``casslab ARGS`` in a session (process group) of its own, output to files."""
    env = {**os.environ, "CASSLAB_HOME": str(home), "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, "-m", "casslab", *args],
        stdout=(home / "out.txt").open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
    )


def _end(process: subprocess.Popen[str]) -> None:
    """Kill what a failed test leaves: the process group the test made."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def _scrape(port: int) -> dict[str, list[PromSample]] | None:
    """Sample lines by name, or None while nothing answers."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            text = response.read().decode()
    except (urllib.error.URLError, ConnectionError):
        return None
    out: dict[str, list[PromSample]] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.setdefault(s.name, []).append(s)
    return out


def _closed(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


# Figures a node gives only when something happened: cache hit rates when a read went to
# an SSTable (this test's rows stay in the memtable; 5.0's chunk cache is off), drops by
# verb when a message was dropped. Their labels are still checked when they appear.
CONDITIONAL = {
    "casslab_cassandra_key_cache_hit_pct",
    "casslab_cassandra_chunk_cache_hit_pct",
    "casslab_cassandra_dropped_messages_by_verb_total",
}


def _node_names() -> set[str]:
    """What the node's samplers produce here: no cgroup, namespace or engine process, and
    no figure of an event that need not happen."""
    skipped = (MetricSource.CGROUP, MetricSource.NETNS, MetricSource.ENGINE)
    return {exposed_name(m) for m in CATALOGUE if m.source not in skipped} - CONDITIONAL


def _labels_by_name() -> dict[str, tuple[str, ...]]:
    return {exposed_name(m): label_names(m) for m in CATALOGUE}


def test_serve_exposes_every_catalogue_metric_with_its_labels_until_sigint(
    node: tuple[LocalCluster, Path],
) -> None:
    cluster, home = node
    session = cluster.session()
    insert = session.prepare("INSERT INTO px.t (k, v) VALUES (?, ?)")
    select = session.prepare("SELECT v FROM px.t WHERE k = ?")
    port = _free_port()
    serve = _spawn(home, "metrics", "serve", "--name", CLUSTER, "--port", str(port))
    try:
        wanted, labels = _node_names(), _labels_by_name()
        seen: set[str] = set()
        deadline = time.monotonic() + 45
        key = 0
        while not wanted <= seen:
            assert serve.poll() is None, (home / "out.txt").read_text()
            assert time.monotonic() < deadline, f"never exposed: {sorted(wanted - seen)}"
            for _ in range(50):  # reads and writes: their latencies are per interval
                session.execute(insert, (key, "v" * 100))
                session.execute(select, (key,))
                key += 1
            scraped = _scrape(port) or {}
            for name, samples in scraped.items():
                if not name.startswith("casslab_"):
                    continue
                assert name in labels, name  # only catalogue metrics on a serve
                for s in samples:
                    assert tuple(sorted(s.labels)) == tuple(sorted(labels[name])), s
                    assert s.labels["cluster"] == CLUSTER
                    assert s.labels["node"] == ADDRESS
                    assert s.labels["dc"] == "datacenter1"
                    if "host" in s.labels:
                        assert s.labels["host"] == socket.gethostname()
                    if "table" in s.labels:  # user tables only
                        assert not s.labels["keyspace"].startswith("system"), s
                seen.add(name)
            time.sleep(0.5)
        # the node's own figures, as the node sees them
        table = {s.labels["table"]: s.value for s in scraped["casslab_cassandra_table_sstables"]}
        assert "t" in table
        [rss] = scraped["casslab_process_rss_bytes"]
        assert rss.value > 100 * 2**20
        # the dashboard's node panels read metrics the endpoint exposes
        assert _dashboard_names() - ENGINE_NAMES - ENGINE_PROCESS - {ERRORS_BY_KIND_NAME} <= seen
        helpers = psutil.Process(serve.pid).children(recursive=True)  # the JMX helper JVM
        serve.send_signal(signal.SIGINT)
        assert serve.wait(timeout=30) == 0, (home / "out.txt").read_text()
    finally:
        _end(serve)
    output = (home / "out.txt").read_text()
    assert f"http://127.0.0.1:{port}/metrics" in output
    assert "Stopped serving metrics" in output
    assert _closed(port)
    _, alive = psutil.wait_procs(helpers, timeout=10)
    assert alive == []


EXPERIMENT = f"""
name: prom-run
description: one short trial on the module's node, scraped while it measures
cluster: {{use: {CLUSTER}}}
schema: {{keyspace: ks_prom}}
factors: {{threads: [4]}}
preload: "write n=500 -pop seq=1..500 -rate threads=4 -schema keyspace=ks_prom"
workload: "mixed ratio(write=1,read=1) -schema keyspace=ks_prom"
measure: "duration=5s -pop dist=UNIFORM(1..500)"
iterations: 1
order: sequential
reset: truncate
kpis: [op_rate]
"""


def test_run_serves_the_engine_intervals_during_the_measured_phase(
    node: tuple[LocalCluster, Path], tmp_path: Path
) -> None:
    _, home = node
    path = tmp_path / "prom-run.yaml"
    path.write_text(EXPERIMENT)
    port = _free_port()
    run = _spawn(
        home, "run", str(path), "--results", str(tmp_path / "results"), "--jvm-warmup", "0",
        "--serve-metrics", "--metrics-port", str(port),
    )  # fmt: skip
    engine: dict[str, list[PromSample]] = {}
    nodes: set[str] = set()
    try:
        deadline = time.monotonic() + 150
        while run.poll() is None:
            assert time.monotonic() < deadline, (home / "out.txt").read_text()
            for name, samples in (_scrape(port) or {}).items():
                if name.startswith("casslab_engine_"):
                    engine.setdefault(name, []).extend(samples)
                elif name.startswith("casslab_"):
                    nodes.add(name)
            time.sleep(0.5)
        output = (home / "out.txt").read_text()
        assert run.returncode == 0, output
    finally:
        _end(run)
    assert f"serving metrics at http://127.0.0.1:{port}/metrics" in output
    assert set(engine) >= ENGINE_NAMES
    rates = engine["casslab_engine_interval_op_rate_per_s"]
    ops = {s.labels["op"] for s in rates}
    assert {"total", "write", "read"} <= ops
    for s in rates:
        assert s.labels["cluster"] == CLUSTER
        assert s.labels["trial"].startswith(s.labels["cell"])
        assert s.labels["phase"] == "measure"
    assert max(s.value for s in rates if s.labels["op"] == "total") > 100
    p99 = [s.value for s in engine["casslab_engine_interval_latency_p99_ms"]]
    assert all(0 < v < 10_000 for v in p99)
    # the cluster's metrics, read by the runner's own samplers, during the phase
    assert {"casslab_cassandra_write_requests_per_s", "casslab_host_cpu_user_pct"} <= nodes
    assert _dashboard_names() & ENGINE_NAMES <= set(engine)
    # the engine process's own figures (CPU, RSS), sampled by the runner in the phase
    assert set(engine) >= ENGINE_PROCESS, sorted(ENGINE_PROCESS - set(engine))
    for name in ENGINE_PROCESS:
        assert {s.labels["node"] for s in engine[name]} == {"engine"}, name
    assert max(s.value for s in engine["casslab_engine_rss_bytes"]) > 2**20
    assert _closed(port)
