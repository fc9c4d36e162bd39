"""The report's table of resources by process: Cassandra, the load engine and the rest."""

from __future__ import annotations

from casslab.analysis import TrialKpis
from casslab.report.resources import container_table, process_table


def _trial(cell: str, iteration: int, **kpis: float) -> TrialKpis:
    return TrialKpis(
        trial_id=f"{cell}/{iteration}", cell_id=cell, iteration=iteration, kpis=dict(kpis)
    )


def test_one_row_per_cell_with_mean_ci_sd_and_variance_of_each_measured_process_kpi() -> None:
    trials = [
        _trial("a", 1, cassandra_cpu_pct=100.0, engine_cpu_pct=20.0, other_cpu_pct=5.0),
        _trial("a", 2, cassandra_cpu_pct=110.0, engine_cpu_pct=22.0, other_cpu_pct=6.0),
        _trial("b", 1, cassandra_cpu_pct=90.0, engine_cpu_pct=21.0, other_cpu_pct=4.0),
        _trial("b", 2, cassandra_cpu_pct=94.0, engine_cpu_pct=19.0, other_cpu_pct=5.0),
    ]
    table = process_table(trials, ["a", "b"], 0.95)
    assert table is not None
    assert len(table.columns) == 4  # cell, then the three KPIs measured (others left out)
    assert [row.cells[0] for row in table.rows] == ["a", "b"]
    first = table.rows[0].cells[1]
    assert first.startswith("105.0 ± 63.5")
    assert "SD 7.07" in first
    assert "var 50.0" in first


def test_no_table_when_no_trial_measured_a_process() -> None:
    assert process_table([_trial("a", 1, op_rate=10.0)], ["a"], 0.95) is None


def test_a_container_table_when_the_nodes_ran_in_cgroups() -> None:
    trials = [
        _trial("netns", 1, container_cpu_pct=48.0, container_memory_limit_bytes=2.0**31),
        _trial("netns", 2, container_cpu_pct=50.0, container_memory_limit_bytes=2.0**31),
        _trial("process", 1, cassandra_cpu_pct=90.0),
    ]
    table = container_table(trials, ["netns", "process"], 0.95)
    assert table is not None
    assert len(table.columns) == 3
    assert table.rows[0].cells[1].startswith("49.00 ± 12.71")
    assert table.rows[1].cells[1:] == ["-", "-"]
    assert container_table(trials[2:], ["process"], 0.95) is None


def test_the_table_latency_stands_beside_the_coordinators() -> None:
    from casslab.report.resources import server_latency_table

    trials = [
        _trial("LCS", 1, cassandra_read_latency_p99_ms=4.0, table_read_latency_p99_ms=1.0),
        _trial("LCS", 2, cassandra_read_latency_p99_ms=6.0, table_read_latency_p99_ms=3.0),
        _trial("STCS", 1, cassandra_read_latency_p99_ms=9.0, table_sstables_per_read_mean=4.5),
    ]
    table = server_latency_table(trials, ["STCS", "LCS"], 0.95)
    assert table is not None
    assert [c.split(" (")[0] for c in table.columns] == [
        "cell",
        "cassandra_read_latency_p99_ms",
        "table_read_latency_p99_ms",
        "table_sstables_per_read_mean",
    ]
    assert table.rows[1].cells[1].startswith("5.00 ± 12.71")
    assert table.rows[1].cells[2].startswith("2.00 ± 12.71")
    assert table.rows[0].cells[3].startswith("4.5")
    assert server_latency_table([_trial("a", 1, op_rate=1.0)], ["a"], 0.95) is None
