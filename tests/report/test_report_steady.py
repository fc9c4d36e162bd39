"""Steady state, cautions, variance and the run facts in a run's report (synthetic run of
conftest.py: steady from 4 / 6 / 0 s (STCS) and 5 s / not steady / 3 s (LCS), LCS #4 failed)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from casslab.report import build_report, read_run, trials_frame, write_report
from casslab.report.html import plotly_figure
from casslab.report.png import render_png
from casslab.report.report_document import FigureSpec, Report, Table, Tone

RunFactory = Callable[..., Path]
STCS = "compaction=STCS"
LCS = "compaction=LCS"
BLUE, RED = "#1f77b4", "#d62728"  # the first two cell colours: STCS, LCS


def _figure(report: Report, figure_id: str) -> FigureSpec:
    return next(f for f in report.figures() if f.id == figure_id)


def _table(report: Report, table_id: str) -> Table:
    return next(t for t in report.tables() if t.id == table_id)


def test_series_figures_mark_each_steady_trials_start(run_dir: Path) -> None:
    report = build_report(read_run(run_dir))

    for figure_id in ("series-op_rate", "series-latency_p99_ms", "metric-cpu-busy"):
        figure = _figure(report, figure_id)
        markers = {(m.x, m.color, m.text) for m in figure.markers}
        assert markers == {
            (4.0, BLUE, "steady from 4 s"),
            (6.0, BLUE, "steady from 6 s"),
            (5.0, RED, "steady from 5 s"),
            (3.0, RED, "steady from 3 s"),
        }
        assert figure.marker_legend == "steady part begins (MSER-5)"
        assert f"steady from 0 s: {STCS} #3" in figure.note
        assert f"NOT steady (KPIs over the whole measured phase): {LCS} #2" in figure.note
    labels = {m.label for m in _figure(report, "series-op_rate").markers}
    assert f"{LCS} #1: steady from 5 s" in labels


def test_markers_are_drawn_in_html_and_png(run_dir: Path) -> None:
    figure = _figure(build_report(read_run(run_dir)), "series-op_rate")

    drawn = plotly_figure(figure)

    legend, *lines = [t for t in drawn.data if t.legendgroup == "markers"]
    assert (legend.showlegend, legend.name) == (True, "steady part begins (MSER-5)")
    assert len(lines) == 4
    assert not any(t.showlegend for t in lines)
    assert {t.x for t in lines} == {(4.0, 4.0), (6.0, 6.0), (5.0, 5.0), (3.0, 3.0)}
    assert {t.line.color for t in lines} == {BLUE, RED}
    assert all(t.line.dash == "dot" for t in lines)
    assert {a.text for a in drawn.layout.annotations} == {
        "steady from 4 s",
        "steady from 6 s",
        "steady from 5 s",
        "steady from 3 s",
    }
    assert render_png(figure)[:8] == b"\x89PNG\r\n\x1a\n"


def test_trials_table_shows_the_steady_state_and_flags_the_unsteady_trial(run_dir: Path) -> None:
    table = _table(build_report(read_run(run_dir)), "trials")

    assert table.columns[:4] == ["#", "trial", "status", "steady state"]
    by_trial = {row.cells[1]: row for row in table.rows}
    assert by_trial[f"{STCS}/1"].cells[3] == "from 4 s"
    assert by_trial[f"{STCS}/3"].cells[3] == "from 0 s"
    assert by_trial[f"{LCS}/2"].cells[3] == "NOT STEADY: trends throughout"
    assert by_trial[f"{LCS}/2"].tone is Tone.CHANGED
    assert by_trial[f"{LCS}/4"].cells[3] == "-"  # failed: nothing to judge
    assert by_trial[f"{LCS}/4"].tone is Tone.BAD
    assert by_trial[f"{STCS}/1"].tone is Tone.NEUTRAL


def test_verdicts_name_the_unsteady_and_failed_trials_they_rest_on(run_dir: Path) -> None:
    report = build_report(read_run(run_dir))

    caution = f"not steady: {LCS}/2; failed, left out: {LCS}/4"
    assert {row.caution for row in report.verdicts} == {caution}
    table = _table(report, "verdicts")
    assert table.columns[-1] == "caution"
    assert all(row.cells[-1] == caution for row in table.rows)
    verdicts = next(s for s in report.sections if s.id == "verdicts")
    assert any(p.startswith("Caution: 5 of 5 verdicts rest on") for p in verdicts.paragraphs)
    assert any(f"trial {LCS}/2 is NOT STEADY: trends throughout" in w for w in report.warnings)


def test_verdicts_without_flagged_trials_have_no_caution(
    make_run: RunFactory, base_trials: tuple[tuple[str, int, float, float, float, float, float]]
) -> None:
    steady_only = tuple(t for t in base_trials if (t[0], t[1]) != (LCS, 2))
    report = build_report(read_run(make_run("clean", steady_only, failed=False)))

    assert all(row.caution == "" for row in report.verdicts)
    assert "caution" not in _table(report, "verdicts").columns


def test_the_headline_sentence_carries_the_caution(written_run: Path) -> None:
    summary = (written_run / "summary.md").read_text(encoding="utf-8")

    assert (
        f"- op_rate of {LCS} vs {STCS}: better (+20.3%, p<0.001); caution: not steady: "
        f"{LCS}/2; failed, left out: {LCS}/4"
    ) in summary


def test_cell_tables_show_the_variance_beside_the_sd(run_dir: Path) -> None:
    report = build_report(read_run(run_dir))
    table = _table(report, "cells-op_rate")

    assert table.columns[4:6] == ["SD", "variance"]
    stcs = next(row for row in table.rows if row.cells[0] == STCS)
    values = [5012.0, 4890.0, 5105.0]
    mean = sum(values) / 3
    variance = sum((v - mean) ** 2 for v in values) / 2
    assert stcs.cells[5] == f"{variance:,.0f}"  # (ops/s)², the SD squared
    assert stcs.cells[4] == f"{variance**0.5:.1f}"


def test_facts_show_the_stop_rule_and_the_data_seed(run_dir: Path) -> None:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    before = dict(build_report(read_run(run_dir)).facts)
    assert (before["stop rule"], before["load engine"]) == ("not recorded", "not pinned")
    manifest["stop_rule"] = "precision"
    manifest["data_seed"] = 7
    manifest["engine_cpus"] = "1"
    (run_dir / "manifest.json").write_text(json.dumps(manifest))

    facts = dict(build_report(read_run(run_dir)).facts)

    assert facts["stop rule"] == "precision"
    assert facts["data seed"] == "7"
    assert facts["load engine"] == "pinned to CPUs 1"
    assert facts["steady state"] == "MSER-5: 5 of 6 trials steady, 1 NOT STEADY (see Trials)"


def test_a_run_that_records_no_steady_state_says_so(make_run: RunFactory) -> None:
    report = build_report(read_run(make_run("old", record_steady=False)))

    assert not any(f.markers for f in report.figures())
    assert all(row.cells[3] == "-" for row in _table(report, "trials").rows)
    facts = dict(report.facts)
    assert facts["steady state"] == "not recorded: the KPIs cover the whole measure phase"
    assert facts["data seed"] == "not recorded"
    assert {row.caution for row in report.verdicts} == {f"failed, left out: {LCS}/4"}


def test_trials_files_have_the_steady_columns(run_dir: Path) -> None:
    paths = write_report(run_dir)

    for frame in (pd.read_parquet(paths.trials_parquet), trials_frame(read_run(run_dir))):
        assert frame["steady_start_s"].dtype == "float64"
        assert str(frame["steady"].dtype) == "boolean"
        by_trial = frame.set_index("trial_id")
        assert by_trial.loc[f"{STCS}/2", "steady_start_s"] == pytest.approx(6.0)
        assert bool(by_trial.loc[f"{STCS}/2", "steady"]) is True
        assert bool(by_trial.loc[f"{LCS}/2", "steady"]) is False
        assert pd.isna(by_trial.loc[f"{LCS}/4", "steady"])
        assert pd.isna(by_trial.loc[f"{LCS}/4", "steady_start_s"])
    csv = pd.read_csv(paths.trials_csv)
    assert list(csv.columns[6:10]) == ["started_at", "ended_at", "steady_start_s", "steady"]
