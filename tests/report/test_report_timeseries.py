"""The seeds' time-series figures in a run's report: each node's metric in the seeds'
units (bytes compacted in MB), each cell's mean over its iterations in slots with
``--window``, the faults' windows of ``faults.json`` shaded on every time series, and the
workload table's own latencies per node."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from typer.testing import CliRunner

from casslab.cli.main import app
from casslab.report import build_report, read_run, write_report
from casslab.report.frames import metric_series
from casslab.report.html import plotly_figure
from casslab.report.png import render_png
from casslab.report.report_document import Band, FigureSpec, Report
from casslab.report.timeseries import workload_table
from casslab.store.layout import RunLayout
from cli_entry import casslab

RunFactory = Callable[..., Path]
STCS = "compaction=STCS"


def _figure(report: Report, figure_id: str) -> FigureSpec:
    return next(f for f in report.figures() if f.id == figure_id)


def _faults(root: Path, cell: str, iteration: int, start: float, end: float) -> None:
    document = {
        "faults": [],
        "windows": [{"kind": "kill", "target": 2, "start_s": start, "end_s": end}],
    }
    RunLayout(root=root).faults_json(cell, iteration).write_text(json.dumps(document))


def test_bytes_compacted_per_node_in_megabytes(make_run: RunFactory) -> None:
    run = read_run(make_run())
    figure = _figure(build_report(run), "metric-bytes-compacted")
    assert figure.y_label == "cassandra.bytes_compacted (MB)"
    trial = next(t for t in run.trials if t.result.cell_id == STCS and t.result.iteration == 1)
    times, values = metric_series(trial, "cassandra.bytes_compacted", combine="node", node="node1")
    [line] = [s for s in figure.series if s.name == f"node1 {STCS} #1"]
    assert line.x == times
    assert line.y == [v * 1e-6 for v in values if v is not None]


def test_a_window_averages_each_cells_iterations_in_slots(make_run: RunFactory) -> None:
    run = read_run(make_run())
    figure = _figure(build_report(run, window_s=10.0), "metric-bytes-compacted")
    assert "mean of the iterations in 10 s slots" in figure.title
    [line] = [s for s in figure.series if s.group == f"node1 {STCS}"]
    trials = [t for t in run.trials if t.result.cell_id == STCS]
    slots: dict[int, list[float]] = {}
    for trial in trials:
        times, values = metric_series(trial, "cassandra.bytes_compacted", node="node1")
        per: dict[int, list[float]] = {}
        for t, v in zip(times, values, strict=True):
            assert v is not None
            per.setdefault(math.floor(t / 10), []).append(v)
        for k, vs in per.items():
            slots.setdefault(k, []).append(sum(vs) / len(vs))
    assert line.x == [(k + 0.5) * 10 for k in sorted(slots)]
    expected = [sum(slots[k]) / len(slots[k]) * 1e-6 for k in sorted(slots)]
    assert line.y == expected
    assert f"mean of {len(trials)} iterations" in line.name


def test_fault_windows_are_shaded_on_every_time_series(make_run: RunFactory) -> None:
    root = make_run()
    _faults(root, STCS, 1, 5.2, 9.5)
    _faults(root, STCS, 2, 5.0, 10.1)  # the same fault, a trial later: one band over both
    run = read_run(root)
    assert [s.label for t in run.trials for s in t.faults] == ["kill node 2"] * 2
    report = build_report(run)
    band = Band(x0=5.0, x1=10.1, label="kill node 2")
    for figure_id in ("series-op_rate", "metric-cpu-busy", "metric-bytes-compacted"):
        figure = _figure(report, figure_id)
        assert figure.bands == [band], figure_id
        assert "shaded: a fault's window" in figure.note
        shapes = plotly_figure(figure).layout.shapes
        assert [(s.x0, s.x1) for s in shapes] == [(5.0, 10.1)]
        assert render_png(figure).startswith(b"\x89PNG")
    assert all(not f.bands for f in build_report(read_run(make_run("no-faults"))).figures())


def test_report_window_from_the_command_line(make_run: RunFactory, tmp_path: Path) -> None:
    root = make_run()
    # the casslab app in this process: a child would spend seconds importing the report's
    # plotting before writing the same report; the refused value below goes through the
    # real entry point, its exit status and its words on stderr
    home = {"CASSLAB_HOME": str(tmp_path / "home")}
    done = CliRunner().invoke(app, ["report", str(root), "--window", "10s"], env=home)
    assert done.exit_code == 0, done.output
    assert "mean of the iterations in 10 s slots" in (root / "report.html").read_text()
    bad = casslab(tmp_path / "home", "report", str(root), "--window", "soon")
    assert bad.returncode != 0
    assert "--window 'soon': give a slot length such as 30s" in " ".join(bad.stderr.split())


def test_an_unreadable_faults_file_is_a_problem_not_a_failure(make_run: RunFactory) -> None:
    root = make_run()
    RunLayout(root=root).faults_json(STCS, 1).write_text("{not json")
    run = read_run(root)
    assert any("faults.json: cannot read" in p for t in run.trials for p in t.problems)
    write_report(root)


def _with_table_metrics(root: Path) -> None:
    """Every trial's metrics plus two user tables' (per node, each second): ks.busy gets
    100 local reads a second and a p99 of 2 ms on node 1, 5 ms on node 2; ks.idle one."""
    for path in sorted(root.glob("trials/*/*/metrics.parquet")):
        frame = pq.read_table(path).to_pandas()
        times = sorted(set(frame["time"]))
        rows = []
        for second, t in enumerate(times):
            for node, p99 in (("node1", 2.0), ("node2", 5.0)):
                rows += [
                    (t, node, "cassandra.table_reads/ks.busy", 100.0 * second),
                    (t, node, "cassandra.table_reads/ks.idle", 1.0 * second),
                    (t, node, "cassandra.table_read_latency_p99_ms/ks.busy", p99),
                    (t, node, "cassandra.table_read_latency_p99_ms/ks.idle", 99.0),
                    (t, node, "cassandra.table_write_latency_p99_ms/ks.busy", p99 / 2),
                    (t, node, "cassandra.table_sstables_per_read_mean/ks.busy", 1.5),
                ]
        added = pd.DataFrame(rows, columns=["time", "node", "metric", "value"])
        both = pd.concat([frame, added], ignore_index=True)
        pq.write_table(pa.Table.from_pandas(both, preserve_index=False), path)


def test_the_workload_tables_own_latency_is_drawn_per_node(make_run: RunFactory) -> None:
    root = make_run()
    _with_table_metrics(root)
    run = read_run(root)
    assert workload_table(run) == "ks.busy"  # the most local reads and writes
    report = build_report(run)
    figure = _figure(report, "metric-table-read-p99-ks-busy")
    assert "ks.busy" in figure.title
    assert figure.y_label == "cassandra.table_read_latency_p99_ms/ks.busy (ms)"
    lines = {s.name: s for s in figure.series}
    by_node = {
        node: {y for name, line in lines.items() if name.startswith(f"{node} ") for y in line.y}
        for node in ("node1", "node2")
    }
    assert by_node == {"node1": {2.0}, "node2": {5.0}}
    assert _figure(report, "metric-table-write-p99-ks-busy").series
    assert _figure(report, "metric-table-sstables-per-read-ks-busy").series
    assert not any("ks-idle" in f.id for f in report.figures())


def test_without_table_metrics_there_is_no_table_figure(make_run: RunFactory) -> None:
    run = read_run(make_run())
    assert workload_table(run) is None
    assert not any(f.id.startswith("metric-table-") for f in build_report(run).figures())
