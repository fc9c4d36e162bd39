"""Container KPIs (cgroup and network namespace of each node, the isolated backend) from a
small literal metrics frame, worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from casslab.analysis import KPI_CATALOGUE, METRIC_RULES, kpi_spec, kpis_from_metrics, trial_kpis
from casslab.analysis.kpi_catalogue import CONTAINER_KPIS

N1, N2 = "10.213.0.2", "10.213.0.10"  # node 1 and node 2: address order, not text order


def container_rows() -> list[tuple[float, str, str, float]]:
    """Two isolated nodes, four instants."""
    series: dict[tuple[str, str], list[float]] = {
        (N1, "cgroup.cpu_usage_pct"): [40, 60, 50, 50],  # mean 50
        (N2, "cgroup.cpu_usage_pct"): [100, 100, 90, 110],  # mean 100
        (N1, "cgroup.cpu_throttled_periods_pct"): [0, 10, 0, 10],  # mean 5
        (N2, "cgroup.cpu_throttled_periods_pct"): [20, 30, 20, 30],  # mean 25
        (N1, "cgroup.memory_usage_bytes"): [1e9, 3e9, 2e9, 2e9],  # max 3e9
        (N2, "cgroup.memory_usage_bytes"): [2e9, 2e9, 2.5e9, 2e9],  # max 2.5e9
        (N1, "cgroup.cpu_limit_cpus"): [0.5] * 4,  # a quota of half a CPU
        (N2, "cgroup.cpu_limit_cpus"): [1.5] * 4,
        (N1, "cgroup.memory_limit_bytes"): [4e9] * 4,
        (N2, "cgroup.memory_limit_bytes"): [6e9] * 4,
        (N1, "netns.rx_bytes_per_s"): [1e6, 3e6, 2e6, 2e6],  # mean 2e6
        (N2, "netns.rx_bytes_per_s"): [0, 1e6, 0, 1e6],  # mean 5e5
        (N1, "netns.tx_bytes_per_s"): [4e6] * 4,
        (N2, "netns.tx_bytes_per_s"): [1e6, 3e6, 1e6, 3e6],  # mean 2e6
        (N1, "cgroup.block_write_bytes_per_s"): [0, 8e6, 0, 0],  # mean 2e6
        (N2, "cgroup.block_write_bytes_per_s"): [1e6] * 4,
        (N1, "cgroup.pids"): [100, 102, 98, 100],  # mean 100
        (N2, "cgroup.pids"): [50, 50, 50, 50],
    }
    return [
        (float(t), node, metric, float(v))
        for (node, metric), values in series.items()
        for t, v in enumerate(values)
    ]


FRAME = pd.DataFrame(container_rows(), columns=["time", "node", "metric", "value"])


def test_container_kpis_summed_or_largest_and_per_node() -> None:
    kpis = kpis_from_metrics(FRAME)
    expected = {  # cluster KPI, node 1, node 2
        "container_cpu_pct": (150.0, 50.0, 100.0),
        "container_throttled_periods_pct": (25.0, 5.0, 25.0),  # the most throttled node
        "container_cpu_limit_cpus": (1.5, 0.5, 1.5),  # the largest quota
        "container_memory_bytes_max": (3e9, 3e9, 2.5e9),  # the node with the most
        "container_memory_limit_bytes": (6e9, 4e9, 6e9),
        "container_net_rx_bytes_per_s": (2.5e6, 2e6, 5e5),
        "container_net_tx_bytes_per_s": (6e6, 4e6, 2e6),
        "container_block_write_bytes_per_s": (3e6, 2e6, 1e6),
        "container_pids": (150.0, 100.0, 50.0),
    }
    for kpi, (total, node1, node2) in expected.items():
        assert kpis[kpi] == pytest.approx(total), kpi
        assert kpis[f"node1.{kpi}"] == pytest.approx(node1), kpi  # 10.213.0.2
        assert kpis[f"node2.{kpi}"] == pytest.approx(node2), kpi  # 10.213.0.10
    assert kpis["cassandra_cpu_pct"] is None  # no process metrics in this frame


def test_container_kpis_over_a_window() -> None:
    kpis = kpis_from_metrics(FRAME, start=2.0)
    assert kpis["container_cpu_pct"] == pytest.approx(50.0 + 100.0)
    assert kpis["container_memory_bytes_max"] == pytest.approx(2.5e9)  # 3e9 was at t=1
    assert kpis["node1.container_block_write_bytes_per_s"] == 0.0


def test_without_containers_they_are_not_measured() -> None:
    """A local cluster (no cgroups, no namespaces): None, never 0; no per-node names."""
    no_containers = FRAME[~FRAME.metric.str.startswith(("cgroup.", "netns."))]
    host = pd.DataFrame(
        [(0.0, N1, "host.cpu_busy_pct", 10.0), (1.0, N1, "host.cpu_busy_pct", 20.0)],
        columns=["time", "node", "metric", "value"],
    )
    kpis = kpis_from_metrics(pd.concat([no_containers, host], ignore_index=True))
    for kpi in CONTAINER_KPIS:
        assert kpis[kpi] is None, kpi
        assert f"node1.{kpi}" not in kpis, kpi


def test_a_node_without_a_memory_limit_leaves_the_other_s() -> None:
    """The sampler omits the limit of a cgroup that has none: the KPI is the others'."""
    frame = FRAME[~((FRAME.node == N2) & (FRAME.metric == "cgroup.memory_limit_bytes"))]
    kpis = kpis_from_metrics(frame)
    assert kpis["container_memory_limit_bytes"] == pytest.approx(4e9)
    assert "node2.container_memory_limit_bytes" not in kpis


def test_container_kpis_are_catalogued_per_node_with_a_node_help() -> None:
    rules = {rule.kpi: rule for rule in METRIC_RULES}
    for kpi in CONTAINER_KPIS:
        assert rules[kpi].per_node, kpi
        assert KPI_CATALOGUE[kpi].per_node, kpi
    assert kpi_spec("container_cpu_pct").unit == "%"
    assert "% of ONE core" in kpi_spec("container_cpu_pct").help
    per_node = kpi_spec("node2.container_memory_bytes_max").help
    assert per_node.startswith("node 2: ")
    assert "over nodes" not in per_node
    assert "over nodes" not in kpi_spec("node1.container_pids").help


def test_container_kpis_in_a_trial() -> None:
    trial = trial_kpis(trial_id="t1", cell_id="c", iteration=1, factors={}, metrics=FRAME)
    assert trial.kpis["container_net_rx_bytes_per_s"] == pytest.approx(2.5e6)
    assert trial.kpis["node2.container_pids"] == pytest.approx(50.0)
