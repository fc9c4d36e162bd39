"""A real experiment end to end: 1 node, 2 cells, 1 iteration each; interrupted after the
first trial, then resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

import casslab.results
from browser_check import CHROMIUM, figure_divs, open_page, screenshot
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialResult, TrialStatus

pytestmark = [pytest.mark.integration, pytest.mark.engine]

# data/two-cells.yaml with one iteration a cell: the test checks the mechanism (Ctrl-C keeps
# the finished trial and stops everything, --resume runs only what is left, on a new node),
# not statistics; which trials of a cell a resume skips is checked on fake clusters
# (test_runner_unit.py), and a trial after another on the same node by the discover test.
# Its node's JVM is light (tests/jit.py): it starts twice and answers a light load.
EXPERIMENT = """\
name: two-cells
cluster: {nodes: 1, heap: 512M,
  jvm_options: ["-XX:TieredStopAtLevel=1", "-Dcassandra.approximate_time_precision_ms=20"]}
schema: {replication: {class: SimpleStrategy, replication_factor: 1}}
factors:
  table.compaction: [SizeTieredCompactionStrategy, LeveledCompactionStrategy]
preload: "write n=5000 -rate threads=8"
workload: "mixed ratio(write=9,read=1)"
warmup: 2s
measure: "duration=6s cl=ONE -pop dist=UNIFORM(1..5000) -rate threads=8"
iterations: 1
reset: truncate
"""


def _casslab(home: Path, results: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "CASSLAB_HOME": str(home), "COLUMNS": "160"}
    experiment = home.parent / "two-cells.yaml"
    experiment.write_text(EXPERIMENT, encoding="utf-8")
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "casslab",
            "run",
            str(experiment),
            "--results",
            str(results),
            "--base-address",
            "127.0.103.1",
            "--jmx-port-base",
            "7630",
            "--jvm-warmup",
            "3",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


def _owned_processes(home: Path, layout_root: Path | None) -> list[str]:
    found = []
    for process in psutil.process_iter(["pid", "cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if str(home) in cmdline or (layout_root is not None and str(layout_root) in cmdline):
            found.append(f"{process.info['pid']}: {cmdline[:120]}")
    return found


def _summaries(results: Path) -> list[Path]:
    return sorted(results.glob("two-cells/*/trials/*/*/summary.json"))


def test_run_interrupted_then_resumed(tmp_path: Path) -> None:
    home, results = tmp_path / "home", tmp_path / "results"
    first = _casslab(home, results)
    try:
        deadline = time.monotonic() + 300
        while not _summaries(results) and time.monotonic() < deadline:
            assert first.poll() is None, first.communicate()[0]
            time.sleep(0.5)
        assert _summaries(results), "no trial finished within 300 s"
        first.send_signal(signal.SIGINT)  # Ctrl-C in the middle of the run
        output, _ = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode != 0, output
    done_before = _summaries(results)
    assert len(done_before) == 1, output  # of 2
    kept = {p: p.stat().st_mtime_ns for p in done_before}
    (run_dir,) = list((results / "two-cells").iterdir())
    time.sleep(2)
    assert _owned_processes(home, run_dir) == [], "a JVM or engine outlived Ctrl-C"

    second = _casslab(home, results, "--resume")
    output, _ = second.communicate(timeout=900)
    assert second.returncode == 0, output
    assert _owned_processes(home, run_dir) == []

    layout = RunLayout(root=run_dir)
    summaries = _summaries(results)
    assert len(summaries) == 2
    for path, mtime in kept.items():
        assert path.stat().st_mtime_ns == mtime, f"{path} was rerun"
    results_by_id = {
        r.trial_id: r for r in (TrialResult.model_validate_json(p.read_text()) for p in summaries)
    }
    assert set(results_by_id) == {"compaction=STCS/1", "compaction=LCS/1"}
    for result in results_by_id.values():
        assert result.status is TrialStatus.OK, result.error
        assert result.engine is not None
        assert result.engine.total.count > 0
        assert result.engine.total.errors == 0
        # the measured reads validate the values the preload wrote: one data seed a run
        assert result.engine.total.mismatches == 0
        # the data came from a capture restored, or from the preload captured; a trial
        # after a node start captures it during its JVM warm-up, then restores it
        assert "restore" in result.phase_s or "capture" in result.phase_s, result.phase_s
        if "jvm warm-up" in result.phase_s:
            assert {"capture", "restore"} <= set(result.phase_s), result.phase_s
        assert result.kpis["op_rate"] is not None
        assert result.kpis["op_rate"] > 0
        assert layout.latency_hlog(result.cell_id, result.iteration).stat().st_size > 0
        metrics = pd.read_parquet(layout.metrics_parquet(result.cell_id, result.iteration))
        assert {"time", "node", "metric", "value"} <= set(metrics.columns)
        assert len(metrics) > 0
    # each cluster start (the first run's and the resumed run's) warmed the JVM first,
    # outside any trial's measurements
    warmed = sorted(p.parent.name for p in run_dir.glob("trials/*/*/jvm-warmup"))
    assert len(warmed) == 2, warmed
    for record in run_dir.glob("trials/*/*/jvm-warmup/warmup.json"):
        warmup = json.loads(record.read_text())
        assert warmup["seconds"] > 0
        assert len(warmup["compiler_pct"]) >= 1
        # as root the compiler threads ran boosted (and got their priority back)
        assert warmup["boosted"] is (os.geteuid() == 0)
    assert len(list(run_dir.glob("trials/*/*/jvm-warmup/warmup.json"))) == 2
    manifest = layout.manifest.read_text()
    assert '"cassandra_version"' in manifest
    assert '"plan_digest"' in manifest

    frames = casslab.results.load(run_dir)
    assert set(frames.trials.trial_id) == set(results_by_id)
    assert set(frames.metrics.trial_id) == set(results_by_id)
    assert (frames.intervals.groupby("trial_id").size() >= 5).all()

    # The report of this real run, checked in a real browser.
    assert layout.report_html.is_file()
    summary_md = layout.summary_md.read_text()
    assert "compaction=LCS vs compaction=STCS" in summary_md
    trials = pd.read_parquet(layout.trials_table)
    assert len(trials) == 2
    if CHROMIUM is None:
        pytest.skip("headless Chromium not installed: apt-get install chromium (make test does)")
    load = open_page(layout.report_html, tmp_path)
    assert load.console == [], "\n".join(load.console)
    assert load.external == []
    divs = figure_divs(load.dom)
    assert divs
    assert [f for f, dom in divs.items() if 'class="main-svg"' not in dom] == []
    screenshot(layout.report_html, run_dir / "report.png", tmp_path)
