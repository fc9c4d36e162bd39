"""Metrics of a real Cassandra node (the session's shared node, emptied before and after).

One node under a write load, then ``nodetool flush`` and ``nodetool compact``: the figures
must move the way Cassandra works, and every catalogue metric appears.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from cassandra.concurrent import execute_concurrent_with_args
from typer.testing import CliRunner

from casslab import metrics
from casslab.analysis.kpi_server import KEY_STAGES
from casslab.analysis.kpis import kpis_from_metrics
from casslab.cluster import LocalCluster
from casslab.metrics.catalogue import family, names
from casslab.metrics.cgroup import CgroupPaths
from shared_clusters import emptied

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def one_node(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


def _series(df: pd.DataFrame, metric: str) -> pd.Series:
    s = df[df.metric == metric].sort_values("time").value
    assert len(s) > 0, f"{metric} never recorded"
    return s.reset_index(drop=True)


def _integral(df: pd.DataFrame, rate_metric: str) -> float:
    """Sum of rate x interval; the intervals come from the instants the CQL source
    answered (its compactions_completed row is there at every instant)."""
    ticks = sorted(df[df.metric == "cassandra.compactions_completed"].time)
    rates = df[df.metric == rate_metric].sort_values("time")
    total = 0.0
    for t, v in zip(rates.time, rates.value, strict=True):
        i = ticks.index(t)
        assert i > 0
        total += v * (t - ticks[i - 1])
    return total


def _write_rows(session: object, start: int, n: int) -> None:
    insert = session.prepare("INSERT INTO mx.t (k, v) VALUES (?, ?)")  # type: ignore[attr-defined]
    results = execute_concurrent_with_args(
        session, insert, [(start + i, "v" * 300) for i in range(n)], concurrency=32
    )
    assert all(ok for ok, _ in results)


def test_write_flush_compact(
    one_node: LocalCluster, sleeper_cgroup: str | None, tmp_path: Path
) -> None:
    session = one_node.session()
    session.execute(
        "CREATE KEYSPACE mx WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
    )
    session.execute(
        "CREATE TABLE mx.t (k int PRIMARY KEY, v text) WITH compaction = "
        "{'class': 'SizeTieredCompactionStrategy', 'min_threshold': 8}"
    )
    targets = metrics.targets_from_nodes(one_node.nodes)
    if sleeper_cgroup is not None:
        targets = [targets[0].model_copy(update={"cgroup": sleeper_cgroup})]
    out = tmp_path / "metrics.parquet"
    # The test process is the client here: it stands in for the load engine.
    with metrics.recorder(targets, out, interval_s=1.0, engine_pid=os.getpid()) as rec:
        time.sleep(2.5)
        for round_ in range(3):
            _write_rows(session, round_ * 3000, 3000)
            for k in range(0, 300):
                session.execute("SELECT v FROM mx.t WHERE k = %s", (k,))
            one_node.nodetool(1, "flush", "mx")
            time.sleep(1.5)
        one_node.nodetool(1, "compact", "mx")
        time.sleep(3.5)
    assert rec.gaps_recorded == 0, metrics.load_gaps(out).to_dict("records")
    df = metrics.load(out)
    assert set(df.node) == {one_node.nodes[0].address, "engine"}

    # every catalogue metric appears at least once
    expected = {n for n in names() if not n.startswith("netns.")}  # no namespace here
    if sleeper_cgroup is None:
        expected -= {n for n in expected if n.startswith("cgroup.")}
    elif CgroupPaths(sleeper_cgroup).io is None:  # v1 counts I/O only under a throttle rule
        expected -= {n for n in expected if n.startswith("cgroup.block_")}
    expected -= {"cassandra.dropped_messages_by_verb"}  # one node under a light load drops none
    expected -= {"cassandra.chunk_cache_hit_pct"}  # Cassandra 5.0 has it off by default
    recorded = {family(m) for m in set(df.metric)}
    assert expected - recorded == set()
    assert recorded <= names()
    # mx.t is the only user table: its own SSTable figures are the totals
    per_table = _series(df, "cassandra.table_sstables/mx.t")
    assert per_table.iloc[-1] == _series(df, "cassandra.sstables").iloc[-1]
    assert _series(df, "cassandra.table_live_disk_bytes/mx.t").max() > 0

    # counters never go back while the node runs
    for m in metrics.CATALOGUE:
        if m.kind is metrics.MetricKind.COUNTER and m.name in set(df.metric):
            s = _series(df, m.name)
            assert (s.diff().dropna() >= 0).all(), m.name

    flushes = _series(df, "cassandra.memtable_flushes")
    assert flushes.iloc[-1] - flushes.iloc[0] >= 3
    sstables = _series(df, "cassandra.sstables")
    assert sstables.iloc[0] == 0
    assert sstables.max() >= 3  # one per flush (min_threshold 8: no automatic compaction)
    assert sstables.iloc[-1] == 1  # after the major compaction
    for counter in (
        "cassandra.compactions_completed",
        "cassandra.compaction_count_total",
    ):
        s = _series(df, counter)
        assert s.iloc[-1] > s.iloc[0], counter
    compacted = _series(df, "cassandra.bytes_compacted")
    assert compacted.iloc[-1] - compacted.iloc[0] > 100_000  # 9000 rows of 300 bytes
    live = _series(df, "cassandra.live_disk_bytes")
    assert live.iloc[0] == 0
    assert live.iloc[-1] > 50_000  # compressed: the values are all alike

    writes = _series(df, "cassandra.write_requests_per_s")
    assert writes.max() > 200
    # the per-second rates, integrated over their intervals, count every request
    assert _integral(df, "cassandra.write_requests_per_s") == pytest.approx(9000, rel=0.02)
    assert _integral(df, "cassandra.read_requests_per_s") == pytest.approx(900, rel=0.02)
    # Count and TotalLatency are two reads: a request landing between them can put its
    # latency in the other interval, so an interval of a few requests may show 0 ms.
    for lat_metric in ("cassandra.write_latency_mean_ms", "cassandra.read_latency_mean_ms"):
        lat = _series(df, lat_metric)
        assert ((lat >= 0) & (lat < 1000)).all(), lat.tolist()
        assert lat.median() > 0, lat.tolist()

    # what Cassandra saw: its stages worked, and its own latency percentiles are ordered
    for stage in KEY_STAGES[:-1]:  # HintsDispatcher: no hint on one node
        assert len(_series(df, f"cassandra.stage_pending/{stage}")) > 0, stage
    assert _series(df, "cassandra.stage_completed_per_s/MutationStage").max() > 200
    assert _series(df, "cassandra.stage_completed_per_s/ReadStage").max() > 10
    assert _series(df, "cassandra.stage_active/Native-Transport-Requests").max() >= 1
    assert _series(df, "cassandra.stage_completed_per_s/MemtableFlushWriter").max() > 0
    p50, p99 = (_series(df, f"cassandra.write_latency_{p}_ms") for p in ("p50", "p99"))
    assert 0 < p50.max() <= p99.max() < 1000
    assert _series(df, "cassandra.rows_per_read_p99").max() >= 1
    # none written: 0 or 1, the upper bound of the histogram's first bucket
    assert (_series(df, "cassandra.tombstones_per_read_p99") <= 1).all()
    # per table: mx.t's own local requests, latency and SSTables per read, its trial KPIs
    table_reads = _series(df, "cassandra.table_reads/mx.t")
    assert table_reads.iloc[-1] - table_reads.iloc[0] == 900
    table_kpis = kpis_from_metrics(df)
    assert 0 < table_kpis["table_write_latency_p99_ms"] < 1000  # type: ignore[operator]
    assert table_kpis["table_sstables_per_read_p99"] >= 1  # type: ignore[operator]
    key_hits = _series(df, "cassandra.key_cache_hit_pct")
    assert ((key_hits >= 0) & (key_hits <= 100)).all()

    # OS and process figures: plausible and not constant
    busy = _series(df, "host.cpu_busy_pct")
    assert ((busy >= 0) & (busy <= 100)).all()
    assert busy.nunique() > 1
    jvm_cpu = _series(df, "process.cpu_pct")
    assert jvm_cpu.max() > 10
    assert jvm_cpu.nunique() > 1
    rss = _series(df, "process.rss_bytes")
    assert (rss > 100 * 2**20).all()
    assert rss.nunique() > 1
    used = _series(df, "host.memory_used_bytes")
    assert (used > rss.max()).all()
    assert used.nunique() > 1
    assert _series(df, "host.disk_write_bytes_per_s").max() > 0
    assert _series(df, "process.threads").min() > 20
    assert _series(df, "engine.cpu_pct").max() > 1
    if sleeper_cgroup is not None:
        assert _series(df, "cgroup.memory_usage_bytes").max() > 16 * 2**20
        assert (_series(df, "cgroup.memory_limit_bytes") == 256 * 2**20).all()
        assert (_series(df, "cgroup.cpu_limit_cpus") == 2.0).all()  # its quota of 2 CPUs


def test_cli_record_over_contact_points(one_node: LocalCluster, tmp_path: Path) -> None:
    from casslab.cli.main import app

    out = tmp_path / "cli.parquet"
    result = CliRunner().invoke(
        app, ["metrics", "record", "-d", "3s", "-o", str(out), "-c", one_node.contact_points[0]]
    )
    assert result.exit_code == 0, result.output
    df = metrics.load(out)
    assert set(df.node) == {one_node.nodes[0].address}
    # contact points only: CQL, with its stand-ins for the JMX metrics
    assert {"cassandra.compactions_completed", "cassandra.compactions_pending"} <= set(df.metric)
    assert not any(m.startswith(("host.", "process.")) for m in set(df.metric))


def test_cli_watch_piped_prints_a_line_per_node_per_tick(one_node: LocalCluster) -> None:
    """``metrics watch`` into a pipe: a tab-separated header, then each tick's line as it
    comes (the first arrives while the command still runs), not one table at the end."""
    point = one_node.contact_points[0]
    command = [sys.executable, "-m", "casslab", "metrics", "watch", "-c", point, "-d", "4s"]
    environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=environment) as watch:
        assert watch.stdout is not None
        header = watch.stdout.readline().rstrip("\n").split("\t")
        first = watch.stdout.readline().rstrip("\n").split("\t")
        still_running = watch.poll() is None
        rest = watch.stdout.read().splitlines()
    assert watch.returncode == 0
    assert header[:5] == ["time", "node", "host cpu %", "jvm cpu %", "jvm rss MiB"]
    assert still_running  # streamed: the first tick's line came before the end
    rows = [first] + [line.split("\t") for line in rest if not line.startswith("# gaps")]
    assert len(rows) >= 3  # about one a second for 4 s
    assert {len(row) for row in rows} == {len(header)}
    assert {row[1] for row in rows} == {one_node.nodes[0].address}
    writes = header.index("writes/s")
    assert all(row[writes] == "-" or float(row[writes]) >= 0 for row in rows)
