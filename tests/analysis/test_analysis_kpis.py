"""Per-trial KPIs from literal engine records and a small literal metrics frame."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from casslab.analysis import (
    KPI_CATALOGUE,
    METRIC_RULES,
    AcrossNodes,
    MetricRule,
    Reduction,
    counter_increase,
    interval_series,
    kpi_spec,
    kpis_from_intervals,
    kpis_from_metrics,
    kpis_from_summary,
    trial_kpis,
)
from casslab.analysis.kpis import node_numbers
from casslab.analysis.metric_rules import table_rules
from casslab.engine_contract.engine_records import (
    IntervalRecord,
    LatencyStats,
    OpStats,
    SummaryRecord,
)
from casslab.errors import AnalysisError


def latency(count: int, mean: float, p99: float, top: float) -> LatencyStats:
    return LatencyStats(
        count=count,
        mean_ms=mean,
        p50_ms=mean * 0.9,
        p95_ms=(mean + p99) / 2,
        p99_ms=p99,
        p999_ms=(p99 + top) / 2,
        max_ms=top,
    )


def op(count: int, errors: int, rate: float, response: LatencyStats) -> OpStats:
    return OpStats(
        count=count,
        errors=errors,
        op_rate=rate,
        response=response,
        service=latency(response.count, 1.0, 2.0, 3.0),
    )


SUMMARY = SummaryRecord(
    duration_s=60.0,
    total=op(120_000, 4, 2000.0, latency(120_000, 2.5, 12.0, 80.0)),
    ops={
        "write": op(108_000, 4, 1800.0, latency(108_000, 2.0, 10.0, 80.0)),
        "read": op(12_000, 0, 200.0, latency(12_000, 5.0, 25.0, 60.0)),
        "scan": op(0, 0, 0.0, latency(0, 0.0, 0.0, 0.0)),
    },
    engine_version="0.1.0",
)


def test_kpis_from_summary_total_and_per_operation() -> None:
    kpis = kpis_from_summary(SUMMARY)
    assert kpis["op_rate"] == 2000.0
    assert kpis["errors"] == 4.0
    assert kpis["latency_mean_ms"] == 2.5
    assert kpis["latency_p50_ms"] == pytest.approx(2.25)
    assert kpis["latency_p95_ms"] == pytest.approx(7.25)
    assert kpis["latency_p99_ms"] == 12.0
    assert kpis["latency_p999_ms"] == 46.0
    assert kpis["latency_max_ms"] == 80.0
    assert kpis["read.op_rate"] == 200.0
    assert kpis["read.latency_p99_ms"] == 25.0  # response time, not service time (2.0)
    assert kpis["write.errors"] == 4.0
    # an operation type that ran no operation: rate 0 measured, latency not measured
    assert kpis["scan.op_rate"] == 0.0
    assert kpis["scan.latency_p99_ms"] is None


def interval(
    t0: float, count: int, mean: float, top: float, *, phase: str = "measure"
) -> IntervalRecord:
    stats = op(count, 1, float(count), latency(count, mean, mean * 3, top))
    return IntervalRecord.model_validate(
        {
            "phase": phase,
            "t_start_s": t0,
            "t_end_s": t0 + 1.0,
            "threads": 8,
            "total": stats.model_dump(),
            "ops": {"write": stats.model_dump()},
        }
    )


INTERVALS = [
    interval(0.0, 5000, 50.0, 900.0, phase="warmup"),
    interval(2.0, 300, 4.0, 30.0),
    interval(1.0, 100, 2.0, 10.0),
]


def test_kpis_from_intervals_weights_and_skips_warmup() -> None:
    kpis = kpis_from_intervals(INTERVALS)
    assert kpis["op_rate"] == pytest.approx(400 / 2.0)
    assert kpis["errors"] == 2.0
    assert kpis["latency_mean_ms"] == pytest.approx((100 * 2.0 + 300 * 4.0) / 400)
    assert kpis["latency_max_ms"] == 30.0
    assert kpis["latency_p99_ms"] is None  # percentiles do not merge
    assert kpis["write.op_rate"] == pytest.approx(200.0)
    assert kpis_from_intervals(INTERVALS, phase="ramp") == {}


def test_interval_series_in_time_order() -> None:
    assert interval_series(INTERVALS, "op_rate") == [100.0, 300.0]
    assert interval_series(INTERVALS, "write.latency_mean_ms") == [2.0, 4.0]
    assert interval_series(INTERVALS, "read.op_rate") == [None, None]
    with pytest.raises(AnalysisError, match="per interval"):
        interval_series(INTERVALS, "bytes_compacted")


@pytest.mark.parametrize(
    ("values", "increase"),
    [
        ([100.0, 200.0, 300.0], 200.0),
        ([100.0, 200.0, 300.0, 50.0, 150.0], 350.0),  # reset to 0 then 50
        ([5.0, 5.0], 0.0),
        ([7.0], 0.0),
    ],
)
def test_counter_increase(values: list[float], increase: float) -> None:
    assert counter_increase(values) == increase


def frame_rows() -> list[tuple[float, str, str, float]]:
    rows: list[tuple[float, str, str, float]] = []
    series: dict[tuple[str, str], list[float]] = {
        ("n1", "cassandra.bytes_compacted"): [100, 200, 300, 50, 150],
        ("n2", "cassandra.bytes_compacted"): [0, 1000, 1000, 1000, 2000],
        ("n1", "host.cpu_busy_pct"): [10, 20, 30, 40, 50],
        ("n2", "host.cpu_busy_pct"): [50, 50, 50, 50, 50],
        ("n1", "host.memory_used_bytes"): [2**30, 2**30, 2**31, 2**30, 2**30],
        ("n1", "host.disk_write_bytes_per_s"): [1e6, 3e6, 1e6, 3e6, 2e6],
        ("n1", "cassandra.compactions_pending"): [0, 2, 4, 2, 2],
        ("n2", "cassandra.compactions_pending"): [1, 1, 1, 1, 1],
        ("n1", "cassandra.sstables"): [5, math.nan, 7, math.nan, 6],
    }
    for (node, metric), values in series.items():
        rows.extend((float(t), node, metric, float(v)) for t, v in enumerate(values))
    return rows


FRAME = pd.DataFrame(frame_rows(), columns=["time", "node", "metric", "value"])


def test_kpis_from_metrics_whole_frame() -> None:
    kpis = kpis_from_metrics(FRAME)
    # every rule's KPI, and the workload table's (none here: None)
    assert set(kpis) == {rule.kpi for rule in (*METRIC_RULES, *table_rules(""))}
    assert kpis["bytes_compacted"] == 350.0 + 2000.0  # n1 has a counter reset
    assert kpis["cpu_busy_pct"] == pytest.approx((30.0 + 50.0) / 2)
    assert kpis["memory_used_mib"] == pytest.approx(1.2 * 1024)  # (4 * 1 + 2) / 5 GiB
    assert kpis["memory_used_mib_max"] == pytest.approx(2048.0)
    assert kpis["disk_write_mb_s"] == pytest.approx(2.0)
    assert kpis["compactions_pending"] == pytest.approx(2.0 + 1.0)
    assert kpis["compactions_pending_max"] == 4.0
    assert kpis["sstables"] == pytest.approx(6.0)  # NaN samples are gaps
    assert kpis["sstables_max"] == 7.0
    assert kpis["compactions_completed"] is None  # not sampled: None, never 0


def test_kpis_from_metrics_window() -> None:
    kpis = kpis_from_metrics(FRAME, start=1.0, end=2.0)
    assert kpis["bytes_compacted"] == 100.0 + 0.0
    assert kpis["cpu_busy_pct"] == pytest.approx((25.0 + 50.0) / 2)
    only_last = kpis_from_metrics(FRAME, start=4.0)
    assert only_last["bytes_compacted"] is None  # one sample per node: increase unknown
    assert only_last["cpu_busy_pct"] == pytest.approx((50.0 + 50.0) / 2)


def test_counter_rate_rule_with_datetime_times() -> None:
    t0 = pd.Timestamp("2026-01-01T00:00:00Z")
    frame = pd.DataFrame(
        {
            "time": [t0 + pd.Timedelta(seconds=s) for s in (0, 2, 4)],
            "node": ["n1"] * 3,
            "metric": ["host.disk_write_bytes"] * 3,
            "value": [0.0, 4e6, 8e6],
        }
    )
    rule = MetricRule(
        kpi="disk_write_mb_s",
        metrics=("host.disk_write_bytes",),
        reduction=Reduction.COUNTER_RATE,
        across_nodes=AcrossNodes.SUM,
        scale=1e-6,
    )
    assert kpis_from_metrics(frame, rules=[rule]) == {"disk_write_mb_s": pytest.approx(2.0)}
    windowed = kpis_from_metrics(frame, start=t0 + pd.Timedelta(seconds=1), rules=[rule])
    assert windowed == {"disk_write_mb_s": pytest.approx(2.0)}
    with pytest.raises(AnalysisError, match="cannot compare the time column"):
        kpis_from_metrics(frame, start=1.0, rules=[rule])


def test_metrics_frame_without_required_columns_is_an_error() -> None:
    with pytest.raises(AnalysisError, match="lacks columns"):
        kpis_from_metrics(pd.DataFrame({"time": [0.0], "value": [1.0]}))


def test_trial_kpis_combines_engine_and_metrics() -> None:
    trial = trial_kpis(
        trial_id="t1",
        cell_id="lcs",
        iteration=2,
        factors={"table.compaction": "LCS"},
        summary=SUMMARY,
        metrics=FRAME,
    )
    assert trial.kpis["op_rate"] == 2000.0
    assert trial.kpis["bytes_compacted"] == 2350.0
    assert trial.factors == {"table.compaction": "LCS"}
    from_intervals = trial_kpis(
        trial_id="t2", cell_id="lcs", iteration=3, factors={}, intervals=INTERVALS
    )
    assert from_intervals.kpis["op_rate"] == pytest.approx(200.0)
    assert from_intervals.kpis["bytes_compacted"] is None
    nothing = trial_kpis(trial_id="t3", cell_id="lcs", iteration=4, factors={})
    assert nothing.kpis["op_rate"] is None
    assert nothing.kpis["cpu_busy_pct"] is None


def test_compactions_completed_prefers_jmx_and_falls_back_to_cql() -> None:
    cql_only = pd.DataFrame(
        {
            "time": [0.0, 1.0, 2.0],
            "node": ["n1"] * 3,
            "metric": ["cassandra.compactions_completed"] * 3,
            "value": [10.0, 12.0, 15.0],
        }
    )
    assert kpis_from_metrics(cql_only)["compactions_completed"] == 5.0
    jmx = cql_only.assign(metric="cassandra.compaction_count_total", value=[1.0, 1.0, 3.0])
    both = pd.concat([cql_only, jmx], ignore_index=True)
    assert kpis_from_metrics(both)["compactions_completed"] == 2.0


def test_every_rule_names_a_catalogued_metric_of_the_right_kind() -> None:
    catalogue = pytest.importorskip("casslab.metrics.catalogue")
    by_name = {m.name: m for m in catalogue.CATALOGUE}
    counters = {Reduction.COUNTER_DELTA, Reduction.COUNTER_RATE}
    for rule in (*METRIC_RULES, *table_rules("keyspace1.standard1")):
        for metric in rule.metrics:
            entry = by_name.get(catalogue.family(metric))  # a stage's, a table's: its family
            assert entry is not None, f"{rule.kpi}: {metric} is not in the metrics catalogue"
            is_counter = entry.kind.value == "counter"
            assert is_counter == (rule.reduction in counters), f"{rule.kpi}: {metric}"


# ---------------------------------------------------------------- CPU, GC, I/O by process

N1, N2 = "127.0.220.2", "127.0.220.10"  # node 1 and node 2: address order, not text order


def process_rows() -> list[tuple[float, str, str, float]]:
    """Two nodes and the engine on one host, four instants (worked out by hand below)."""
    series: dict[tuple[str, str], list[float]] = {
        (N1, "host.cpu_busy_core_pct"): [150, 170, 160, 160],  # mean 160
        (N2, "host.cpu_busy_core_pct"): [150, 170, 160, 160],  # the same host
        (N1, "process.cpu_pct"): [40, 60, 50, 50],  # mean 50
        (N2, "process.cpu_pct"): [20, 20, 30, 30],  # mean 25
        (N1, "process.cpu_user_pct"): [30, 45, 40, 35],  # mean 37.5
        (N2, "process.cpu_user_pct"): [15, 15, 20, 22],  # mean 18
        (N1, "process.cpu_system_pct"): [10, 15, 10, 15],  # mean 12.5
        (N2, "process.cpu_system_pct"): [5, 5, 10, 8],  # mean 7
        ("engine", "engine.cpu_pct"): [30, 50, 40, 40],  # mean 40
        ("engine", "engine.cpu_user_pct"): [20, 40, 30, 30],  # mean 30
        ("engine", "engine.cpu_system_pct"): [10, 10, 10, 10],  # mean 10
        (N1, "cassandra.gc_pause_ms"): [100, 120, 120, 150],  # +50
        (N2, "cassandra.gc_pause_ms"): [5, 5, 30, 30],  # +25
        (N1, "process.write_bytes_per_s"): [1e6, 3e6, 2e6, 2e6],  # mean 2e6
        (N2, "process.write_bytes_per_s"): [0, 1e6, 0, 1e6],  # mean 5e5
        (N1, "process.rss_bytes"): [1e9, 1e9, 1e9, 1e9],
        (N2, "process.rss_bytes"): [2e9, 2e9, 3e9, 3e9],  # mean 2.5e9
        ("engine", "engine.rss_bytes"): [1e8, 1e8, 2e8, 2e8],  # mean 1.5e8
    }
    return [
        (float(t), node, metric, float(v))
        for (node, metric), values in series.items()
        for t, v in enumerate(values)
    ]


PROCESS_FRAME = pd.DataFrame(process_rows(), columns=["time", "node", "metric", "value"])


def test_cpu_by_whom_adds_up_to_the_host() -> None:
    kpis = kpis_from_metrics(PROCESS_FRAME)
    assert kpis["host_cpu_pct"] == pytest.approx(160.0)
    assert kpis["cassandra_cpu_pct"] == pytest.approx(50.0 + 25.0)
    assert kpis["cassandra_cpu_user_pct"] == pytest.approx(37.5 + 18.0)
    assert kpis["cassandra_cpu_system_pct"] == pytest.approx(12.5 + 7.0)
    assert kpis["engine_cpu_pct"] == pytest.approx(40.0)
    assert kpis["engine_cpu_user_pct"] == pytest.approx(30.0)
    assert kpis["engine_cpu_system_pct"] == pytest.approx(10.0)
    assert kpis["other_cpu_pct"] == pytest.approx(160.0 - 75.0 - 40.0)
    parts = ("cassandra_cpu_pct", "engine_cpu_pct", "other_cpu_pct")
    assert sum(kpis[k] or 0.0 for k in parts) == pytest.approx(kpis["host_cpu_pct"])


def test_per_process_resources_summed_and_per_node() -> None:
    kpis = kpis_from_metrics(PROCESS_FRAME)
    expected = {
        "gc_pause_ms": (75.0, 50.0, 25.0),
        "cassandra_disk_write_bytes_per_s": (2.5e6, 2e6, 5e5),
        "cassandra_rss_bytes": (3.5e9, 1e9, 2.5e9),
        "cassandra_cpu_pct": (75.0, 50.0, 25.0),
        "cassandra_cpu_user_pct": (55.5, 37.5, 18.0),
        "cassandra_cpu_system_pct": (19.5, 12.5, 7.0),
    }
    for kpi, (total, node1, node2) in expected.items():
        assert kpis[kpi] == pytest.approx(total), kpi
        assert kpis[f"node1.{kpi}"] == pytest.approx(node1), kpi  # 127.0.220.2
        assert kpis[f"node2.{kpi}"] == pytest.approx(node2), kpi  # 127.0.220.10
    assert kpis["engine_rss_bytes"] == pytest.approx(1.5e8)
    assert "node3.cassandra_cpu_pct" not in kpis
    assert not any(k.startswith("node") and "engine" in k for k in kpis)  # one engine


def test_per_node_kpis_are_valid_trial_kpis_and_windowed() -> None:
    trial = trial_kpis(
        trial_id="t1", cell_id="c", iteration=1, factors={}, metrics=PROCESS_FRAME, start=2.0
    )
    assert trial.kpis["node1.gc_pause_ms"] == 30.0  # 120 -> 150 in the window
    assert trial.kpis["node2.gc_pause_ms"] == 0.0
    assert trial.kpis["node2.cassandra_cpu_pct"] == pytest.approx(30.0)
    assert kpi_spec("node2.cassandra_cpu_pct").unit == "%"
    assert "node 2" in kpi_spec("node2.cassandra_cpu_pct").help


def test_numbering_comes_from_the_whole_frame_not_the_window() -> None:
    # node 1 has no sample in the window: node 2 keeps its number
    frame = PROCESS_FRAME[~((PROCESS_FRAME.node == N1) & (PROCESS_FRAME.time >= 2))]
    kpis = kpis_from_metrics(frame, start=2.0)
    assert "node1.cassandra_cpu_pct" not in kpis
    assert kpis["node2.cassandra_cpu_pct"] == pytest.approx(30.0)
    named = kpis_from_metrics(PROCESS_FRAME, numbering={N1: 7, N2: 3})
    assert named["node7.gc_pause_ms"] == 50.0
    assert named["node3.gc_pause_ms"] == 25.0
    with pytest.raises(AnalysisError, match="has no number"):
        kpis_from_metrics(PROCESS_FRAME, numbering={N1: 1})


def test_other_cpu_is_unknown_without_the_engine_or_the_nodes() -> None:
    no_engine = kpis_from_metrics(PROCESS_FRAME[PROCESS_FRAME.node != "engine"])
    assert no_engine["engine_cpu_pct"] is None
    assert no_engine["other_cpu_pct"] is None  # unknown, never "everything else"
    assert no_engine["cassandra_cpu_pct"] == pytest.approx(75.0)
    cql_only = kpis_from_metrics(FRAME)
    assert cql_only["host_cpu_pct"] is None
    assert cql_only["other_cpu_pct"] is None


@pytest.mark.parametrize(
    ("labels", "numbers"),
    [
        ([N2, N1], {N1: 1, N2: 2}),
        (
            ["db-b", "10.0.0.9", "db-a", "10.0.0.10"],
            {"10.0.0.9": 1, "10.0.0.10": 2, "db-a": 3, "db-b": 4},
        ),
        ([N1, N1], {N1: 1}),
        ([], {}),
    ],
)
def test_node_numbers_in_address_order(labels: list[str], numbers: dict[str, int]) -> None:
    assert node_numbers(labels) == numbers


def test_a_rule_subtracting_an_unknown_kpi_is_an_error() -> None:
    rule = MetricRule(
        kpi="other_cpu_pct",
        metrics=("host.cpu_busy_core_pct",),
        reduction=Reduction.GAUGE_MEAN,
        across_nodes=AcrossNodes.MEAN,
        minus=("no_such_kpi",),
    )
    with pytest.raises(AnalysisError, match="no earlier rule computes"):
        kpis_from_metrics(PROCESS_FRAME, rules=[rule])


@pytest.mark.parametrize(
    "name",
    [
        "node0.cassandra_cpu_pct",
        "node1.cpu_busy_pct",
        "read.cassandra_cpu_pct",
        "nodeA.gc_pause_ms",
    ],
)
def test_per_node_names_outside_the_scheme_are_rejected(name: str) -> None:
    with pytest.raises(AnalysisError, match="node<N>"):
        kpi_spec(name)


def test_every_rule_kpi_is_catalogued_with_its_per_node_flag() -> None:
    for rule in METRIC_RULES:
        spec = KPI_CATALOGUE[rule.kpi]
        assert spec.per_node == rule.per_node, rule.kpi
        cpu_time = "cpu" in rule.kpi and rule.kpi != "cpu_busy_pct"  # that one: all CPUs
        if rule.kpi.endswith("_pct") and cpu_time:
            assert "% of ONE core" in spec.help, rule.kpi
