"""casslab.report: a run directory -> report.html, figures/*.png, summary.md, trials.*

:func:`write_report` rebuilds everything from the files of a run directory (``casslab
report DIR``); :func:`compare_runs` writes ``compare.html`` and ``compare.md`` for two
runs (``casslab compare A B``). Reading a run directory is the store's
(:func:`casslab.store.run_data.read_run`); building the report is pure (:mod:`.build`,
:mod:`.compare`); :mod:`.html`, :mod:`.markdown`, :mod:`.png` and :mod:`.tables` render
it; this module writes the files, atomically, through the store.

A run written before ``plan.json`` existed has no plan; ``legacy_plan`` (the CLI passes the
experiment package's expansion of the manifest's experiment) stands in for it, and the
report says so. Without it, the report says why its cells are in sorted order.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from casslab.analysis import AnalysisOptions
from casslab.analysis.claim_records import Claim
from casslab.analysis.run_frames import cell_layout, intervals_frame, trials_frame
from casslab.report.build import build_report
from casslab.report.compare import build_comparison
from casslab.report.confined import inside, output_folder
from casslab.report.html import render_html
from casslab.report.markdown import render_markdown
from casslab.report.png import render_png
from casslab.report.profile_files import read_cell_stacks, write_graphs
from casslab.report.profiles import cell_graphs
from casslab.report.report_document import FigureSpec, Report, ReportPaths, VerdictRow
from casslab.report.tables import trials_csv, trials_parquet
from casslab.store.io import atomic_write
from casslab.store.layout import RunLayout
from casslab.store.run_data import LegacyPlan, RunData, TrialData, read_run

__all__ = [
    "FigureSpec",
    "Report",
    "ReportPaths",
    "RunData",
    "TrialData",
    "VerdictRow",
    "build_comparison",
    "build_report",
    "compare_runs",
    "intervals_frame",
    "read_run",
    "render_html",
    "render_markdown",
    "trials_frame",
    "write_report",
]

COMPARE_HTML = "compare.html"
COMPARE_MD = "compare.md"


def _write_figures(report: Report, directory: Path) -> dict[str, Path]:
    return {
        figure.id: atomic_write(directory / f"{figure.id}.png", render_png(figure))
        for figure in report.figures()
    }


def write_report(
    run_dir: Path,
    options: AnalysisOptions = AnalysisOptions(),
    *,
    legacy_plan: LegacyPlan | None = None,
    window_s: float | None = None,
    claims: Sequence[Claim] | None = None,
) -> ReportPaths:
    """Rebuild the report of a run directory from its files; returns what was written.
    ``window_s``: the cluster-metric figures show each cell's mean over its iterations in
    slots of that many seconds instead of every iteration. ``claims``: judge these instead
    of the manifest's (an experiment file's claims, for a run made before it had them)."""
    run = read_run(run_dir, legacy_plan=legacy_plan)
    layout = RunLayout(root=Path(run_dir))
    for path in (layout.trials_table, layout.trials_csv, layout.summary_md, layout.report_html):
        inside(path.parent, layout.root)
    frame = trials_frame(run)
    parquet = atomic_write(layout.trials_table, trials_parquet(frame))
    csv = atomic_write(layout.trials_csv, trials_csv(frame))
    stacks, unread = read_cell_stacks(run)
    if unread:
        run = run.model_copy(update={"problems": (*run.problems, *unread)})
    report = build_report(run, options, window_s=window_s, claims=claims, profiles=stacks)
    figures = _write_figures(report, inside(layout.figures_dir, layout.root))
    graphs = write_graphs(layout.root, cell_graphs(stacks, cell_layout(run).baseline_cell))
    links = {key: path.relative_to(layout.root).as_posix() for key, path in figures.items()}
    summary = atomic_write(layout.summary_md, render_markdown(report, links))
    html = atomic_write(layout.report_html, render_html(report))
    return ReportPaths(
        report_html=html,
        summary_md=summary,
        trials_parquet=parquet,
        trials_csv=csv,
        figures=list(figures.values()),
        flame_graphs=graphs,
        problems=list(run.problems),
    )


def compare_runs(
    run_a: Path,
    run_b: Path,
    out: Path,
    options: AnalysisOptions = AnalysisOptions(),
    *,
    legacy_plan: LegacyPlan | None = None,
) -> Path:
    """Compare run B with run A; writes ``compare.html`` and ``compare.md`` into ``out``.

    Returns the path of ``compare.html``.
    """
    output_folder(Path(out), (COMPARE_MD, COMPARE_HTML))
    run_a_data = read_run(run_a, legacy_plan=legacy_plan)
    report = build_comparison(run_a_data, read_run(run_b, legacy_plan=legacy_plan), options)
    atomic_write(Path(out) / COMPARE_MD, render_markdown(report, full=True))
    return atomic_write(Path(out) / COMPARE_HTML, render_html(report))
