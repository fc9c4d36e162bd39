"""The Claims section opens the report of a run whose experiment states the study's claims:
built from the synthetic run directory of conftest.py (LCS ~20% faster than STCS, p99 alike)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from casslab.report import build_report, read_run, write_report
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
