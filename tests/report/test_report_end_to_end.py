"""End to end on a synthetic run directory: load, build, write and read back every file."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import plotly.offline
import pytest

from casslab.analysis import Verdict
from casslab.analysis.run_frames import intervals_frame, trial_kpis_of
from casslab.errors import StoreError
from casslab.report import build_report, read_run, trials_frame, write_report
from casslab.report.frames import metric_series

RunFactory = Callable[..., Path]
Trials = tuple[tuple[str, int, float, float, float, float, float], ...]

# the literals of conftest.py's synthetic run
STCS = "compaction=STCS"
LCS = "compaction=LCS"
KPIS = ["op_rate", "latency_p99_ms", "latency_mean_ms", "cpu_busy_pct", "sstables"]
INTERVALS = 20

# ---------------------------------------------------------------- load


def test_load_run_reads_every_trial_and_tolerates_missing_files(run_dir: Path) -> None:
    run = read_run(run_dir)

    assert run.manifest.experiment_name == "synthetic"
    assert len(run.trials) == 7
    assert [t.result.order_index for t in run.trials] == list(range(7))
    ok = [t for t in run.trials if t.result.status == "ok"]
    assert len(ok) == 6
    for trial in ok:
        assert len([i for i in trial.intervals if i.phase == "measure"]) == INTERVALS
        assert trial.engine_summary is not None
        assert trial.metrics is not None
        assert list(trial.metrics.columns) == ["time", "node", "metric", "value"]
        assert trial.problems == ()
    failed = next(t for t in run.trials if t.result.status == "failed")
    assert failed.intervals == ()
    assert failed.metrics is None
    assert failed.problems == ("engine.jsonl is missing", "metrics.parquet is missing")


def test_load_run_without_manifest_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"manifest\.json not found"):
        read_run(tmp_path)


def test_truncated_engine_line_is_skipped_and_noted(run_dir: Path) -> None:
    jsonl = run_dir / "trials" / STCS / "1" / "engine.jsonl"
    jsonl.write_text(jsonl.read_text() + '{"type": "interval", "t_sta', encoding="utf-8")

    run = read_run(run_dir)

    trial = next(t for t in run.trials if t.result.trial_id == f"{STCS}/1")
    assert len(trial.intervals) == 23
    assert len(trial.problems) == 1
    assert "unreadable record" in trial.problems[0]


def test_kpis_are_computed_when_the_runner_recorded_none(make_run: RunFactory) -> None:
    recorded = read_run(make_run("with", failed=False))
    computed = read_run(make_run("without", failed=False, record_kpis=False))

    for a, b in zip(recorded.trials, computed.trials, strict=True):
        assert b.result.kpis == {}
        kpis_a = trial_kpis_of(a).kpis
        kpis_b = trial_kpis_of(b).kpis
        assert kpis_b["op_rate"] == pytest.approx(kpis_a["op_rate"])
        assert kpis_b["cpu_busy_pct"] == pytest.approx(kpis_a["cpu_busy_pct"])


# ---------------------------------------------------------------- frames


def test_trials_frame_has_one_row_per_trial_with_factors_and_kpis(run_dir: Path) -> None:
    frame = trials_frame(read_run(run_dir))

    assert len(frame) == 7
    for column in ("trial_id", "cell_id", "iteration", "status", "error", "table.compaction"):
        assert column in frame.columns
    for kpi in KPIS:
        assert frame[kpi].dtype == "float64"
    assert "write.latency_p99_ms" in frame.columns
    stcs = frame[frame["cell_id"] == STCS].sort_values("iteration")
    assert list(stcs["op_rate"]) == pytest.approx([5012.0, 4890.0, 5105.0])
    assert set(frame["table.compaction"]) == {"STCS", "LCS"}
    failed = frame[frame["status"] == "failed"]
    assert len(failed) == 1
    assert "OutOfMemoryError" in str(failed["error"].iloc[0])
    assert pd.isna(failed["op_rate"].iloc[0])


def test_intervals_frame_holds_the_measured_intervals(run_dir: Path) -> None:
    frame = intervals_frame(read_run(run_dir))

    assert len(frame) == 6 * INTERVALS
    first = frame[frame["trial_id"] == f"{LCS}/1"]
    assert list(first["t_s"]) == [float(s) for s in range(1, INTERVALS + 1)]
    assert first["op_rate"].between(5500, 6500).all()


def test_metric_series_is_cut_to_the_measure_window(run_dir: Path) -> None:
    run = read_run(run_dir)
    trial = run.trials[0]

    times, values = metric_series(trial, "host.cpu_busy_pct")

    assert times[0] == 0.0
    assert times[-1] == float(INTERVALS)
    assert len(values) == INTERVALS + 1
    assert metric_series(trial, "no.such_metric") == ([], [])


# ---------------------------------------------------------------- build


def test_report_verdicts_against_the_baseline(run_dir: Path) -> None:
    report = build_report(read_run(run_dir))

    by_kpi = {row.kpi: row for row in report.verdicts}
    assert set(by_kpi) == set(KPIS)
    assert all(row.baseline_cell == STCS and row.cell_id == LCS for row in report.verdicts)
    op_rate = by_kpi["op_rate"]
    assert op_rate.verdict is Verdict.BETTER
    assert op_rate.ratio == pytest.approx(18060 / 15007, rel=1e-6)
    assert op_rate.ratio_low is not None
    assert op_rate.ratio_low > 1.1
    assert op_rate.p_value is not None
    assert op_rate.p_value < 0.001
    p99 = by_kpi["latency_p99_ms"]
    assert p99.verdict is Verdict.NO_SIGNIFICANT_DIFFERENCE
    assert p99.verdict_text == "not significant"
    assert by_kpi["latency_mean_ms"].verdict is Verdict.BETTER  # p50 1.8 vs 2.1 ms
    assert by_kpi["cpu_busy_pct"].verdict is Verdict.CHANGED_UP  # neutral: never "better"
    assert any("failed" in w and f"{LCS}/4" in w for w in report.warnings)


def test_report_figures_cover_every_kind(run_dir: Path) -> None:
    report = build_report(read_run(run_dir))
    ids = [f.id for f in report.figures()]

    assert len(ids) == len(set(ids))
    assert {"series-op_rate", "series-latency_p99_ms"} <= set(ids)
    assert {f"bars-{k}" for k in KPIS} <= set(ids)
    assert {f"box-{k}" for k in KPIS} <= set(ids)
    assert "latency-percentiles" in ids
    assert {"metric-cpu-busy", "metric-compactions-pending", "metric-sstables"} <= set(ids)
    series = next(f for f in report.figures() if f.id == "series-op_rate")
    assert len(series.series) == 6  # one line per finished iteration
    assert sum(s.show_legend for s in series.series) == 2  # one legend entry per cell


def test_report_of_one_cell_has_no_verdicts(make_run: RunFactory, base_trials: Trials) -> None:
    only_stcs = tuple(t for t in base_trials if t[0] == STCS)
    report = build_report(read_run(make_run("one", only_stcs, failed=False)))

    assert report.verdicts == []
    assert "nothing to compare" in report.sections[0].paragraphs[0]


def test_a_cell_with_one_iteration_is_undetermined(
    make_run: RunFactory, base_trials: Trials
) -> None:
    trials = tuple(t for t in base_trials if t[0] == STCS or t[1] == 1)
    report = build_report(read_run(make_run("thin", trials, failed=False)))

    assert {row.verdict for row in report.verdicts} == {Verdict.UNDETERMINED}
    assert all(row.verdict_text == "undetermined" for row in report.verdicts)


# ---------------------------------------------------------------- files


def test_write_report_writes_every_file(run_dir: Path) -> None:
    paths = write_report(run_dir)

    assert paths.report_html == run_dir / "report.html"
    parquet = pd.read_parquet(paths.trials_parquet)
    csv = pd.read_csv(paths.trials_csv)
    assert len(parquet) == len(csv) == 7
    assert list(parquet.columns) == list(csv.columns)
    assert {"trial_id", "cell_id", "iteration", "table.compaction", *KPIS} <= set(csv.columns)
    assert csv.loc[csv["trial_id"] == f"{STCS}/2", "op_rate"].item() == pytest.approx(4890.0)

    report = build_report(read_run(run_dir))
    assert sorted(p.name for p in paths.figures) == sorted(f"{f.id}.png" for f in report.figures())
    for png in paths.figures:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        pixels = matplotlib.image.imread(png)
        assert float(np.std(pixels[..., :3])) > 0.05, f"{png.name} looks blank"


def test_summary_markdown_has_verdict_lines(written_run: Path) -> None:
    summary = (written_run / "summary.md").read_text(encoding="utf-8")

    assert summary.startswith("# casslab report: synthetic")
    assert f"- op_rate of {LCS} vs {STCS}: better (+20.3%, p<0.001)" in summary
    assert re.search(rf"- latency_p99_ms of {re.escape(LCS)} vs .*: not significant \(", summary)
    assert re.search(r"\| op_rate \| ops/s \| compaction=LCS \|.*\| better \|", summary)
    assert "| latency_p99_ms | ms | compaction=LCS |" in summary
    assert "### Cells: mean ± 95% CI half-width" in summary
    assert "## Warnings" in summary
    assert f"trial {LCS}/4 failed" in summary
    assert "## Method" in summary
    assert "Welch" in summary
    assert "![op_rate: mean and 95% CI per cell](figures/bars-op_rate.png)" in summary


def test_report_html_is_self_contained(written_run: Path) -> None:
    html = (written_run / "report.html").read_text(encoding="utf-8")
    report = build_report(read_run(written_run))

    bundle = plotly.offline.get_plotlyjs()
    assert html.count(bundle) == 1  # plotly.js inline, once
    page = html.replace(bundle, "")  # the bundle's own strings mention URLs; tags must not
    sources = re.findall(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=", page, re.I)
    assert sources == []
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page, re.I)
    assert not re.search(r"https?://", page)
    divs = re.findall(r'<div id="fig-([^"]+)" class="plotly-graph-div"', html)
    assert sorted(divs) == sorted(f.id for f in report.figures())
    assert html.index('id="verdicts"') < html.index('id="cells"')
    assert "not significant" in html


def test_each_nodes_clock_is_a_line_of_its_own(written_run: Path) -> None:
    report = build_report(read_run(written_run))

    offsets = next(f for f in report.figures() if f.id == "metric-clock-offset")
    assert {s.group for s in offsets.series} == {"node1", "node2"}
    behind = [v for s in offsets.series if s.group == "node2" for v in s.y if v is not None]
    assert behind
    assert max(behind) < -490
    assert sum(s.show_legend for s in offsets.series) == 2  # each node once in the legend
    assert any(f.id == "metric-clock-delay" for f in report.figures())


def test_what_cassandra_saw_is_drawn_per_node(written_run: Path) -> None:
    report = build_report(read_run(written_run))

    pending = next(f for f in report.figures() if f.id == "metric-stage-pending-mutationstage")
    assert {s.group for s in pending.series} == {"node1", "node2"}
    assert pending.y_label == "cassandra.stage_pending/MutationStage (tasks)"
    assert not any(f.id == "metric-key-cache-hit" for f in report.figures())  # not recorded


def test_each_cell_has_its_bottleneck_next_to_the_verdicts(written_run: Path) -> None:
    report = build_report(read_run(written_run))

    ids = [s.id for s in report.sections]
    assert ids.index("bottlenecks") == ids.index("verdicts") + 1
    [table] = next(s for s in report.sections if s.id == "bottlenecks").tables
    assert table.columns == ["cell", "bottleneck", "trials", "evidence"]
    rows = {row.cells[0]: row.cells for row in table.rows}
    assert set(rows) == {STCS, LCS}
    # the synthetic trials' queues stay under the threshold: nothing limited them
    assert {cells[1] for cells in rows.values()} == {"none"}
    assert rows[LCS][2] == "3 of 3"  # its failed fourth trial is not diagnosed


def test_a_run_without_metrics_has_no_metric_figures(make_run: RunFactory) -> None:
    report = build_report(read_run(make_run("bare", failed=False, with_metrics=False)))

    assert not [f for f in report.figures() if f.id.startswith("metric-")]
    cpu = next(row for row in report.verdicts if row.kpi == "cpu_busy_pct")
    assert cpu.verdict is Verdict.UNDETERMINED
    assert "has no value of cpu_busy_pct" in cpu.reason
    assert any("metrics.parquet is missing" in w for w in report.warnings)


def test_a_run_whose_trials_all_failed_still_gets_a_report(make_run: RunFactory) -> None:
    root = make_run("failed", (), failed=True)

    paths = write_report(root)

    summary = paths.summary_md.read_text(encoding="utf-8")
    assert "no trial finished" in summary
    assert len(pd.read_csv(paths.trials_csv)) == 1
    assert "plotly-graph-div" not in paths.report_html.read_text(encoding="utf-8")


def test_a_run_with_no_trial_yet_gets_an_empty_report(tmp_path: Path, make_run: RunFactory) -> None:
    root = make_run("empty", (), failed=False)

    paths = write_report(root)

    assert len(pd.read_parquet(paths.trials_parquet)) == 0
    assert "no trial finished" in paths.summary_md.read_text(encoding="utf-8")


def test_files_below_a_trial_directory_are_not_trials(run_dir: Path) -> None:
    preload = run_dir / "trials" / STCS / "1" / "preload"
    preload.mkdir()
    (preload / "summary.json").write_text("{}", encoding="utf-8")
    (run_dir / "trials" / STCS / "9").mkdir()
    (run_dir / "trials" / STCS / "9" / "summary.json").write_text("{not json", encoding="utf-8")

    run = read_run(run_dir)

    assert len(run.trials) == 7
    assert len(run.problems) == 1
    assert run.problems[0].startswith(f"trials/{STCS}/9/summary.json: not a trial summary")
    assert any("not a trial summary" in w for w in build_report(run).warnings)
