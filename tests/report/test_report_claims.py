"""The Claims section opens the report of a run whose experiment states the study's claims:
built from the synthetic run directory of conftest.py (LCS ~20% faster than STCS, p99 alike)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from typer.testing import CliRunner

from casslab.analysis.claim_records import Claim
from casslab.analysis.pooled_share import pooled_shares
from casslab.cli.report import register
from casslab.report import build_report, read_run, write_report
from casslab.report.claims import pooled_estimate
from claim_literals import CLAIMS

RunFactory = Callable[..., Path]


def test_the_report_opens_with_the_claims_and_their_verdicts(make_run: RunFactory) -> None:
    report = build_report(read_run(make_run("claims", claims=CLAIMS)))
    first = report.sections[0]
    assert first.id == "claims"
    (table,) = first.tables
    assert table.columns[:5] == [
        "claim",
        "source",
        "study's number",
        "casslab's estimate (95% CI)",
        "verdict",
    ]
    faster, p99, dtcs = (row.cells for row in table.rows)
    assert faster[2] == "2358 vs 2350 op/s"
    # LCS 6,020 / 5,930 / 6,110 against STCS 5,012 / 4,890 / 5,105 (conftest.TRIALS)
    assert faster[3].startswith("6,020 vs 5,002 ops/s: +20.3% [")
    assert faster[4] == "holds here"
    # the study's -16.7% would show in 2 iterations per cell; the run had 3
    assert p99[4] == "not significant here"
    assert "this run had 3: a difference that large is unlikely here" in p99[5]
    assert dtcs[4] == "not testable here"
    assert dtcs[5] == "DateTieredCompactionStrategy does not exist in Cassandra 5.0"
    assert "1 holds here, 1 not significant here, 1 not testable here" in first.paragraphs[0]


def test_summary_and_html_show_the_claims_first(make_run: RunFactory) -> None:
    run_dir = make_run("claims-files", claims=CLAIMS)
    paths = write_report(run_dir)
    summary = paths.summary_md.read_text(encoding="utf-8")
    assert summary.index("## Claims") < summary.index("## Headline")
    assert "| LCS sustains more operations per second than STCS |" in summary
    html = paths.report_html.read_text(encoding="utf-8")
    assert html.index('id="claims"') < html.index('id="verdicts"')


def test_a_run_without_claims_has_no_claims_section(make_run: RunFactory) -> None:
    report = build_report(read_run(make_run("plain")))
    assert all(section.id != "claims" for section in report.sections)


def test_claims_given_to_the_report_judge_a_run_made_without_them(make_run: RunFactory) -> None:
    run = read_run(make_run("older"))
    claims = [Claim.model_validate(c) for c in CLAIMS]
    first = build_report(run, claims=claims).sections[0]
    assert first.id == "claims"
    assert "The claims are the experiment file's, given to the report." in first.paragraphs
    assert [row.cells[4] for row in first.tables[0].rows] == [
        "holds here",
        "not significant here",
        "not testable here",
    ]


EXPERIMENT = """
name: {name}
factors:
  table.compaction: [STCS, LCS]
workload: "mixed ratio(write=9,read=1)"
measure: "duration=20s cl=ONE -rate threads=16"
kpis: [op_rate, latency_p99_ms]
claims:
  - says: "LCS sustains more operations per second than STCS"
    source: "seed 001, Table 2"
    compare: {{a: {{table.compaction: LCS}}, b: {{table.compaction: STCS}}}}
    kpi: op_rate
    direction: higher
"""


def test_casslab_report_claims_takes_the_run_s_experiment_file(
    make_run: RunFactory, tmp_path: Path
) -> None:
    run = make_run("older")
    app = typer.Typer()
    register(app)
    other = tmp_path / "other.yaml"
    other.write_text(EXPERIMENT.format(name="other"))
    refused = CliRunner().invoke(app, ["report", str(run), "--claims", str(other)])
    assert refused.exit_code != 0
    assert "it is experiment 'other', the run is of 'synthetic'" in str(refused.exception)
    same = tmp_path / "synthetic.yaml"
    same.write_text(EXPERIMENT.format(name="synthetic"))
    result = CliRunner().invoke(app, ["report", str(run), "--claims", str(same)])
    assert result.exit_code == 0, result.output
    summary = (run / "summary.md").read_text()
    assert "| LCS sustains more operations per second than STCS | seed 001, Table 2 |" in summary


def test_a_pooled_estimate_shows_the_shares_the_counts_and_the_points() -> None:
    pooled = pooled_shares("lww_lost", "lww_acknowledged", [(500, 500)] * 2, [(0, 500)] * 2)
    shown = pooled_estimate(pooled)
    assert shown.startswith(
        "100% vs 0% (1,000 of 1,000 vs 0 of 1,000 lww_acknowledged): +100 points ["
    )
    low = float(shown.split("[")[1].split(",")[0])
    assert 99.0 < low < 100.0
