"""The Prometheus exposition on literal records: names, label sets, the store's newest
values, the collector's families as a scrape shows them (parsed back with
``prometheus_client``'s parser), the loopback rule, and the Grafana dashboard's names."""

from __future__ import annotations

import json
import math
import re
import socket
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample as PromSample

from casslab.engine_contract.engine_records import ErrorKind, IntervalRecord, LatencyStats, OpStats
from casslab.errors import ConfigError
from casslab.metrics.catalogue import CATALOGUE, metric
from casslab.metrics.prom_names import (
    ENGINE_INTERVAL_METRICS,
    ERRORS_BY_KIND,
    exposed_name,
    interval_exposed_name,
    is_valid,
    label_names,
    sanitize,
    table_of,
)
from casslab.metrics.prom_server import MetricsServer, check_bind, is_loopback
from casslab.metrics.prom_store import ClusterLabels, LatestValues, NodeLabels, Snapshot
from casslab.metrics.prometheus import LatestCollector, families
from casslab.metrics.source import Gap, Sample
from cli_entry import NEEDS_ENGINE, casslab, flat

DASHBOARD = Path(__file__).resolve().parents[2] / "dashboards" / "grafana" / "casslab.json"
EXPERIMENT = Path(__file__).parents[1] / "experiment" / "data" / "two-cells.yaml"
LABELS = ClusterLabels(
    cluster="lab",
    nodes={
        "127.0.0.1": NodeLabels(dc="dc1", host="box"),
        "127.0.0.2": NodeLabels(dc="dc2", host="box"),
    },
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("host.cpu_user_pct", "casslab_host_cpu_user_pct"),
        ("host.disk_read_bytes_per_s", "casslab_host_disk_read_bytes_per_s"),
        ("cassandra.table_sstables", "casslab_cassandra_table_sstables"),
        ("clock.offset_ms", "casslab_clock_offset_ms"),
        ("odd-name.with  spaces/and.dots", "casslab_odd_name_with_spaces_and_dots"),
        ("9lives.x", "casslab_9lives_x"),
    ],
)
def test_sanitize(name: str, expected: str) -> None:
    assert sanitize(name) == expected
    assert is_valid(sanitize(name))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("host.cpu_user_pct", "casslab_host_cpu_user_pct"),
        ("cassandra.gc_pause_ms", "casslab_cassandra_gc_pause_ms_total"),  # a counter
        ("cassandra.compaction_count_total", "casslab_cassandra_compaction_count_total"),
        ("cgroup.cpu_throttled_s", "casslab_cgroup_cpu_throttled_s_total"),
        ("cassandra.write_requests_per_s", "casslab_cassandra_write_requests_per_s"),  # a rate
    ],
)
def test_exposed_names_keep_the_catalogue_unit_and_end_counters_in_total(
    name: str, expected: str
) -> None:
    assert exposed_name(metric(name)) == expected


def test_every_name_is_legal_and_unique() -> None:
    names = [exposed_name(m) for m in CATALOGUE]
    names += [interval_exposed_name(m) for m in ENGINE_INTERVAL_METRICS]
    assert all(is_valid(n) for n in names), [n for n in names if not is_valid(n)]
    assert len(names) == len(set(names))
    # a counter's family (its name without _total) must not be another metric's name
    families_ = [n.removesuffix("_total") for n in names]
    assert len(families_) == len(set(families_))


@pytest.mark.parametrize(
    ("name", "labels"),
    [
        ("cassandra.compactions_pending", ("cluster", "node", "dc")),
        ("process.rss_bytes", ("cluster", "node", "dc")),
        ("host.cpu_iowait_pct", ("cluster", "node", "dc", "host")),
        ("cassandra.table_sstables", ("cluster", "node", "dc", "keyspace", "table")),
        ("cassandra.table_live_disk_bytes", ("cluster", "node", "dc", "keyspace", "table")),
        ("cassandra.stage_pending", ("cluster", "node", "dc", "stage")),
        ("cassandra.stage_blocked_all_time", ("cluster", "node", "dc", "stage")),
        ("cassandra.dropped_messages_by_verb", ("cluster", "node", "dc", "verb")),
    ],
)
def test_label_sets(name: str, labels: tuple[str, ...]) -> None:
    assert label_names(metric(name)) == labels


def test_table_of() -> None:
    assert table_of("cassandra.table_sstables/ks1.standard1") == ("ks1", "standard1")
    assert table_of("cassandra.sstables") is None


def _parse(text: str) -> dict[str, list[PromSample]]:
    """Sample lines by sample name (a counter's with ``_total``)."""
    out: dict[str, list[PromSample]] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out.setdefault(s.name, []).append(s)
    return out


def _scrape(snapshot_or_store: Snapshot | LatestValues, now: float = 1000.0) -> str:
    registry = CollectorRegistry(auto_describe=False)
    store = snapshot_or_store
    if isinstance(store, Snapshot):
        registry.register(_Fixed(store))
    else:
        registry.register(LatestCollector(store, clock=lambda: now))
    return generate_latest(registry).decode()


class _Fixed:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def collect(self) -> Any:
        return families(self.snapshot)


def test_the_collector_over_fixed_rows() -> None:
    snapshot = Snapshot(
        labels=LABELS,
        samples=(
            Sample(999.0, "127.0.0.1", "host.cpu_user_pct", 12.5),
            Sample(999.0, "127.0.0.2", "host.cpu_user_pct", 12.5),
            Sample(999.0, "127.0.0.1", "cassandra.compactions_pending", 3.0),
            Sample(999.0, "127.0.0.2", "cassandra.compactions_pending", 0.0),
            Sample(999.0, "127.0.0.1", "cassandra.gc_pause_ms", 250.0),
            Sample(999.0, "127.0.0.1", "cassandra.table_sstables/ks.t1", 4.0),
            Sample(999.0, "127.0.0.1", "cassandra.table_sstables/ks.t2", 1.0),
            Sample(999.0, "127.0.0.1", "cassandra.stage_pending/MutationStage", 7.0),
            Sample(999.0, "127.0.0.1", "cassandra.stage_pending/Native-Transport-Requests", 2.0),
            Sample(999.0, "127.0.0.1", "cassandra.read_latency_mean_ms", math.nan),
            Sample(999.0, "127.0.0.1", "not.in_the_catalogue", 1.0),
            Sample(999.0, "engine", "engine.cpu_pct", 40.0),
        ),
    )
    text = _scrape(snapshot)
    parsed = _parse(text)
    assert "# TYPE casslab_cassandra_gc_pause_ms_total counter" in text
    assert "# TYPE casslab_host_cpu_user_pct gauge" in text
    assert "Unit: %." in text  # the catalogue's help and unit
    [gc] = parsed["casslab_cassandra_gc_pause_ms_total"]
    assert gc.value == 250.0
    assert gc.labels == {"cluster": "lab", "node": "127.0.0.1", "dc": "dc1"}
    cpu = {s.labels["node"]: s for s in parsed["casslab_host_cpu_user_pct"]}
    assert cpu["127.0.0.2"].labels == {
        "cluster": "lab",
        "node": "127.0.0.2",
        "dc": "dc2",
        "host": "box",
    }
    pending = {s.labels["node"]: s.value for s in parsed["casslab_cassandra_compactions_pending"]}
    assert pending == {"127.0.0.1": 3.0, "127.0.0.2": 0.0}
    tables = {s.labels["table"]: s for s in parsed["casslab_cassandra_table_sstables"]}
    assert {t: s.value for t, s in tables.items()} == {"t1": 4.0, "t2": 1.0}
    assert tables["t1"].labels["keyspace"] == "ks"
    stages = {s.labels["stage"]: s.value for s in parsed["casslab_cassandra_stage_pending"]}
    assert stages == {"MutationStage": 7.0, "Native-Transport-Requests": 2.0}
    # NaN values and names outside the catalogue are left out
    assert "casslab_cassandra_read_latency_mean_ms" not in parsed
    assert not any("not_in" in name for name in parsed)
    # the engine process is no node of the cluster: its dc is empty (absent)
    [engine] = parsed["casslab_engine_cpu_pct"]
    assert engine.labels == {"cluster": "lab", "node": "engine", "dc": ""}


def _stats(count: int, errors: int, p99: float) -> OpStats:
    lat = LatencyStats(
        count=count, mean_ms=1.0, p50_ms=0.8, p95_ms=2.0, p99_ms=p99, p999_ms=9.0, max_ms=12.0
    )
    return OpStats(count=count, errors=errors, op_rate=float(count), response=lat, service=lat)


def _interval(count: int, errors: int, p99: float) -> IntervalRecord:
    return IntervalRecord(
        t_start_s=0.0,
        t_end_s=1.0,
        threads=8,
        total=_stats(count, errors, p99),
        ops={"write": _stats(count, errors, p99)},
    )


def test_engine_intervals_as_gauges_and_trial_totals() -> None:
    store = LatestValues(LABELS)
    store.record_interval("c1/1", "c1", _interval(900, 2, 4.5), now=998.0)
    store.record_interval("c1/1", "c1", _interval(1100, 1, 3.5), now=999.0)
    parsed = _parse(_scrape(store))
    rate = {s.labels["op"]: s for s in parsed["casslab_engine_interval_op_rate_per_s"]}
    assert set(rate) == {"total", "write"}
    assert rate["total"].value == 1100.0
    assert rate["total"].labels == {
        "cluster": "lab",
        "trial": "c1/1",
        "cell": "c1",
        "phase": "measure",
        "op": "total",
    }
    p99 = {s.labels["op"]: s.value for s in parsed["casslab_engine_interval_latency_p99_ms"]}
    assert p99 == {"total": 3.5, "write": 3.5}
    assert {s.value for s in parsed["casslab_engine_interval_errors"]} == {1.0}
    [threads] = parsed["casslab_engine_interval_threads"]  # of the total only
    assert threads.value == 8.0
    ops = {s.labels["op"]: s.value for s in parsed["casslab_engine_operations_total"]}
    assert ops == {"total": 2000.0, "write": 2000.0}
    errors = {s.labels["op"]: s.value for s in parsed["casslab_engine_errors_total"]}
    assert errors == {"total": 3.0, "write": 3.0}
    names = {interval_exposed_name(m) for m in ENGINE_INTERVAL_METRICS}
    assert names <= set(parsed)
    assert "casslab_engine_errors_by_kind_total" not in parsed  # no kind was counted


def test_errors_by_kind_are_a_counter_per_kind_since_the_phase_began() -> None:
    store = LatestValues(LABELS)
    first = _interval(900, 3, 4.5)
    kinds = {ErrorKind.WRITE_TIMEOUT: 2, ErrorKind.UNAVAILABLE: 1}
    stats = first.total.model_copy(update={"errors_by_kind": kinds})
    store.record_interval("c1/1", "c1", first.model_copy(update={"total": stats}), now=998.0)
    second = _interval(1100, 4, 3.5)
    stats = second.total.model_copy(update={"errors_by_kind": {ErrorKind.UNAVAILABLE: 4}})
    store.record_interval("c1/1", "c1", second.model_copy(update={"total": stats}), now=999.0)
    parsed = _parse(_scrape(store))
    series = parsed["casslab_engine_errors_by_kind_total"]
    by_kind = {(s.labels["op"], s.labels["kind"]): s.value for s in series}
    assert by_kind == {("total", "unavailable"): 5.0, ("total", "write_timeout"): 2.0}
    assert series[0].labels.keys() == {"cluster", "trial", "cell", "phase", "op", "kind"}


def test_the_store_shows_the_newest_value_until_it_is_too_old() -> None:
    store = LatestValues(LABELS, max_age_s=10.0)
    store.update(100.0, [Sample(100.0, "127.0.0.1", "process.threads", 80.0)], [])
    store.update(101.0, [Sample(101.0, "127.0.0.1", "process.threads", 81.0)], [])
    assert [s.value for s in store.snapshot(105.0).samples] == [81.0]
    assert store.snapshot(111.5).samples == ()  # older than 10 s
    store.record_interval("t", "c", _interval(10, 0, 1.0), now=100.0)
    assert len(store.snapshot(105.0).engine) == 2
    assert store.snapshot(120.0).engine == ()


def test_a_gap_removes_that_source_of_that_node_at_once() -> None:
    store = LatestValues(LABELS)
    samples = [
        Sample(100.0, "127.0.0.1", "cassandra.compactions_running", 0.0),  # cql
        Sample(100.0, "127.0.0.2", "cassandra.compactions_running", 0.0),
        Sample(100.0, "127.0.0.1", "process.rss_bytes", 1e9),  # process
        Sample(100.0, "127.0.0.1", "host.load_1m", 1.0),  # host, both nodes
        Sample(100.0, "127.0.0.2", "host.load_1m", 1.0),
    ]
    store.update(100.0, samples, [])
    gaps = [
        Gap(time=101.0, node="127.0.0.1", source="cql", error="down"),
        Gap(time=101.0, node="127.0.0.1,127.0.0.2", source="host", error="gone"),
    ]
    store.update(101.0, [], gaps)
    left = {(s.node, s.metric) for s in store.snapshot(102.0).samples}
    assert left == {
        ("127.0.0.2", "cassandra.compactions_running"),
        ("127.0.0.1", "process.rss_bytes"),
    }


def test_another_cluster_s_labels_drop_the_previous_values() -> None:
    store = LatestValues(LABELS)
    store.update(100.0, [Sample(100.0, "127.0.0.1", "process.threads", 80.0)], [])
    store.set_labels(LABELS)  # the same cluster again: kept
    assert len(store.snapshot(100.0).samples) == 1
    store.set_labels(ClusterLabels(cluster="other"))
    assert store.snapshot(100.0).samples == ()
    assert store.labels.cluster == "other"


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.243.7", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("10.1.2.3", False),
        ("db1.example", False),
    ],
)
def test_loopback(address: str, loopback: bool) -> None:
    assert is_loopback(address) is loopback


def test_binding_beyond_loopback_needs_the_flag() -> None:
    with pytest.raises(ConfigError, match=r"--address 0\.0\.0\.0: not a loopback.*--allow-remote"):
        check_bind("0.0.0.0", 9464, allow_remote=False)
    check_bind("0.0.0.0", 9464, allow_remote=True)
    with pytest.raises(ConfigError, match="--port 70000"):
        check_bind("127.0.0.1", 70000, allow_remote=False)


def test_the_server_answers_and_closes_its_socket() -> None:
    store = LatestValues(LABELS)
    store.update(1e12, [Sample(1e12, "127.0.0.1", "process.threads", 80.0)], [])
    with MetricsServer(store, port=0) as server:
        assert server.url == f"http://127.0.0.1:{server.port}/metrics"
        with urllib.request.urlopen(server.url, timeout=10) as response:
            text = response.read().decode()
        # a port in use is refused with the fix
        with pytest.raises(Exception, match=f"127.0.0.1:{server.port}.*pick another --port"):
            MetricsServer(store, port=server.port)
    [threads] = _parse(text)["casslab_process_threads"]
    assert threads.value == 80.0
    with socket.socket() as probe:  # closed: the port is free again
        assert probe.connect_ex(("127.0.0.1", server.port)) != 0


def dashboard_exprs() -> list[str]:
    """Every PromQL expression of the dashboard: its panels' and its variables'."""
    board = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
    for var in board["templating"]["list"]:
        if var["type"] == "query":
            exprs.append(var["query"]["query"])
    return exprs


def dashboard_metric_names() -> set[str]:
    return {n for e in dashboard_exprs() for n in re.findall(r"\bcasslab_[a-zA-Z0-9_]+", e)}


def test_the_dashboard_names_only_metrics_casslab_exposes() -> None:
    board = json.loads(DASHBOARD.read_text())
    exposable = {exposed_name(m) for m in CATALOGUE}
    exposable |= {interval_exposed_name(m) for m in (*ENGINE_INTERVAL_METRICS, ERRORS_BY_KIND)}
    names = dashboard_metric_names()
    assert names - exposable == set()
    assert len(names) >= 15
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    assert {"node", "dc"} <= set(variables)
    for panel in board["panels"]:  # every panel reads the chosen data source
        assert panel["datasource"]["uid"] == "${datasource}"
        for target in panel["targets"]:
            expr = target["expr"]
            if "cluster=~" in expr and "op=" not in expr and "casslab_engine_" not in expr:
                assert 'node=~"$node"' in expr, expr  # the engine's rows have no node of
                assert 'dc=~"$dc"' in expr, expr  # the cluster's: they are not filtered
    titles = " ".join(p["title"].lower() for p in board["panels"])
    for needed in ("op rate", "p99", "cpu", "disk", "memory", "compactions"):
        assert needed in titles


def test_serve_refuses_an_address_beyond_loopback_before_sampling(tmp_path: Path) -> None:
    done = casslab(tmp_path / "home", "metrics", "serve", "--address", "0.0.0.0")
    assert done.returncode == 2  # an option value casslab checks: a usage error
    assert "--address 0.0.0.0: not a loopback address" in flat(done.stderr)
    assert "add --allow-remote" in flat(done.stderr)


@NEEDS_ENGINE[0]
@NEEDS_ENGINE[1]
def test_run_refuses_it_too_before_a_run_directory_exists(tmp_path: Path) -> None:
    results = tmp_path / "results"
    done = casslab(
        tmp_path / "home", "run", str(EXPERIMENT), "--results", str(results),
        "--serve-metrics", "--metrics-address", "10.1.2.3",
    )  # fmt: skip
    assert done.returncode == 2
    assert "--metrics-address 10.1.2.3: not a loopback address" in flat(done.stderr)
    assert "add --metrics-allow-remote" in flat(done.stderr)
    assert not results.exists()
