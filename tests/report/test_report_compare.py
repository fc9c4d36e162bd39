"""Two runs compared: per-trial Welch for cells with iterations, interval series for one
trial each, and the files compare_runs writes."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from casslab.analysis import Verdict
from casslab.errors import ReportError
from casslab.report import RunData, build_comparison, compare_runs, read_run

RunFactory = Callable[..., Path]
Trials = tuple[tuple[str, int, float, float, float, float, float], ...]
STCS = "compaction=STCS"
LCS = "compaction=LCS"


def test_runs_with_iterations_are_compared_cell_by_cell(make_run: RunFactory) -> None:
    a = read_run(make_run("run-a"))
    b = read_run(make_run("run-b", failed=False, scale=1.1))

    report = build_comparison(a, b)

    rows = {(r.kpi, r.cell_id): r for r in report.verdicts}
    assert {cell for _, cell in rows} == {f"B {STCS}", f"B {LCS}"}
    faster = rows[("op_rate", f"B {LCS}")]
    assert faster.verdict is Verdict.BETTER
    assert faster.ratio == pytest.approx(1.1)
    assert faster.baseline_cell == f"A {LCS}"
    same = rows[("latency_p99_ms", f"B {STCS}")]
    assert same.verdict is Verdict.NO_SIGNIFICANT_DIFFERENCE
    assert same.p_value == pytest.approx(1.0)
    table = report.tables()[0]
    assert {row.cells[-1] for row in table.rows} == {"per-trial Welch"}
    assert any(f"run A: trial {LCS}/4 failed" in w for w in report.warnings)


def test_single_trials_use_the_autocorrelation_corrected_series(
    make_run: RunFactory, base_trials: Trials
) -> None:
    one = base_trials[:1]
    a = read_run(make_run("one-a", one, failed=False))
    b = read_run(make_run("one-b", one, failed=False, scale=1.1))

    report = build_comparison(a, b)

    rows = {r.kpi: r for r in report.verdicts}
    assert rows["op_rate"].verdict is Verdict.BETTER
    assert rows["op_rate"].change_pct == pytest.approx(10.0, abs=0.5)
    # the series are identical in shape: latency did not move
    assert rows["latency_p99_ms"].verdict is Verdict.NO_SIGNIFICANT_DIFFERENCE
    assert rows["cpu_busy_pct"].verdict is Verdict.UNDETERMINED
    assert "no per-interval series" in rows["cpu_busy_pct"].reason
    methods = {row.cells[0]: row.cells[-1] for row in report.tables()[0].rows}
    assert methods["op_rate"] == "intervals, autocorrelation-corrected Welch"
    ids = [f.id for f in report.figures()]
    assert ids == ["compare-series-0-op_rate", "compare-series-0-latency_p99_ms"]


def _renamed(run: RunData, names: dict[str, str]) -> RunData:
    trials = tuple(
        t.model_copy(
            update={"result": t.result.model_copy(update={"cell_id": names[t.result.cell_id]})}
        )
        for t in run.trials
    )
    return run.model_copy(update={"trials": trials})


def test_runs_without_a_shared_cell_are_refused(make_run: RunFactory, base_trials: Trials) -> None:
    a = read_run(make_run("a", base_trials, failed=False))
    b = _renamed(
        read_run(make_run("b", base_trials, failed=False)),
        {STCS: "compaction=UCS", LCS: "compaction=TWCS"},
    )
    with pytest.raises(ReportError, match="share no cell"):
        build_comparison(a, b)

    one_a = read_run(make_run("one-a", base_trials[:1], failed=False))
    one_b = _renamed(read_run(make_run("one-b", base_trials[:1], failed=False)), {STCS: "x"})
    report = build_comparison(one_a, one_b)  # one cell each: compared whatever the ids
    assert {r.cell_id for r in report.verdicts} == {"B x"}


def test_compare_runs_writes_html_and_markdown(make_run: RunFactory, tmp_path: Path) -> None:
    out = tmp_path / "out"

    html = compare_runs(make_run("run-a"), make_run("run-b", failed=False, scale=0.9), out)

    assert html == out / "compare.html"
    page = html.read_text(encoding="utf-8")
    assert page.count('class="plotly-graph-div"') >= 5
    assert not re.search(r"<script[^>]*\bsrc=", page)
    summary = (out / "compare.md").read_text(encoding="utf-8")
    assert "| op_rate | ops/s | compaction=LCS |" in summary
    assert "worse" in summary
    assert "not significant" in summary
