"""The report's bottleneck per cell judges an isolated node's CPU against the quota its
records hold (``cgroup.cpu_limit_cpus``, kept as ``node<N>.container_cpu_limit_cpus``),
the rule a live diagnosis uses; a run recorded before the quota was sampled still renders,
judged by throttled periods only, and says so.

The run here is the synthetic run of conftest.py (a real run whose cells differ in a
node's CPU limit is judged in tests/experiment/run/test_runner_isolation_integration.py)
with, in each trial's metrics.parquet, what the cgroup sampler records of two isolated
nodes every second: their cgroup CPU, throttled periods and (new runs) quota. The
real sampler's quota reading is checked on two real nodes at 0.5 CPU in
tests/cluster/isolated/test_isolated_integration.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from casslab.analysis.run_frames import trial_kpis_of
from casslab.report import build_report, read_run
from casslab.report.report_document import Section
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialStatus

RunFactory = Callable[..., Path]
STCS = "compaction=STCS"  # the literals of conftest.py's synthetic run
LCS = "compaction=LCS"

# cell -> (each node's cgroup CPU, % of one core; throttled periods, %; quota, CPUs)
STCS_NODES = (46.0, 20.0, 0.5)  # 92% of half a CPU: CPU-bound, while rarely throttled
LCS_NODES = (46.0, 0.0, 1.0)  # 46% of one CPU: room left


def _with_cgroups(
    root: Path, *, record_quota: bool, stcs: tuple[float, float, float] = STCS_NODES
) -> Path:
    """Add the cgroup rows of two isolated nodes, every second, to each finished trial's
    metrics (of a run written without KPIs), then record its KPIs from its records as the
    runner does at a trial's end."""
    layout = RunLayout(root=root)
    for trial in read_run(root).trials:
        result = trial.result
        if result.status is not TrialStatus.OK or trial.metrics is None:
            continue
        cpu, throttled, quota = stcs if result.cell_id == STCS else LCS_NODES
        series = {"cgroup.cpu_usage_pct": cpu, "cgroup.cpu_throttled_periods_pct": throttled}
        if record_quota:
            series["cgroup.cpu_limit_cpus"] = quota
        rows = [
            (t, node, metric, value)
            for t in sorted(set(trial.metrics["time"]))
            for node in ("node1", "node2")
            for metric, value in series.items()
        ]
        added = pd.DataFrame(rows, columns=["time", "node", "metric", "value"])
        frame = pd.concat([trial.metrics, added], ignore_index=True)
        frame.to_parquet(layout.metrics_parquet(result.cell_id, result.iteration), index=False)
    for trial in read_run(root).trials:
        result = trial.result
        if result.status is TrialStatus.OK:
            recorded = result.model_copy(update={"kpis": trial_kpis_of(trial).kpis})
            layout.trial_summary(result.cell_id, result.iteration).write_text(
                recorded.model_dump_json(indent=2), encoding="utf-8"
            )
    return root


def _section(root: Path) -> Section:
    report = build_report(read_run(root))
    return next(s for s in report.sections if s.id == "bottlenecks")


def test_a_node_at_its_recorded_quota_is_named_cpu_bound(make_run: RunFactory) -> None:
    root = _with_cgroups(make_run("quota", failed=False, record_kpis=False), record_quota=True)
    trial = next(t for t in read_run(root).trials if t.result.cell_id == STCS)
    assert trial.result.kpis["node1.container_cpu_limit_cpus"] == 0.5  # kept with the trial

    section = _section(root)
    rows = {row.cells[0]: row.cells for row in section.tables[0].rows}
    assert rows[STCS][1:3] == ["node_cpu", "3 of 3"]
    assert rows[STCS][3].startswith("the busiest node used 0.4")
    assert "of its 0.5 CPU limit (9" in rows[STCS][3]
    assert rows[LCS][1] == "none"  # the same CPU against a whole CPU: room left
    assert not any("not in the records" in p for p in section.paragraphs)


def test_an_old_run_without_the_quota_falls_back_to_throttling_and_says_so(
    make_run: RunFactory,
) -> None:
    root = _with_cgroups(make_run("old", failed=False, record_kpis=False), record_quota=False)
    trial = next(t for t in read_run(root).trials if t.result.cell_id == STCS)
    assert "node1.container_cpu_limit_cpus" not in trial.result.kpis

    section = _section(root)
    rows = {row.cells[0]: row.cells for row in section.tables[0].rows}
    assert rows[STCS][1] == "none"  # 20% of the periods throttled: under its threshold
    (said,) = [p for p in section.paragraphs if "not in the records" in p]
    assert said.startswith("The nodes' CPU quota is not in the records of every trial")
    assert "judged by throttled periods only" in said


@pytest.mark.parametrize("record_quota", [True, False])
def test_throttling_alone_still_names_node_cpu(make_run: RunFactory, record_quota: bool) -> None:
    run = make_run(f"throttled-{record_quota}", failed=False, record_kpis=False)
    # 40% of one core under a quota of half a CPU (80%), but throttled in 70% of the periods
    root = _with_cgroups(run, record_quota=record_quota, stcs=(40.0, 70.0, 0.5))
    rows = {row.cells[0]: row.cells for row in _section(root).tables[0].rows}
    assert rows[STCS][1] == "node_cpu"
    assert "a node hit its CPU limit in 70% of the quota periods" in rows[STCS][3]
