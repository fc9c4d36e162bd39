"""casslab.report: a run directory -> report.html, figures/*.png, summary.md, trials.*

:func:`write_report` rebuilds everything from the files of a run directory (``casslab
report DIR``); :func:`compare_runs` writes ``compare.html`` and ``compare.md`` for two
runs (``casslab compare A B``). Reading is in :mod:`.load`; building the report is pure
(:mod:`.build`, :mod:`.compare`); :mod:`.html`, :mod:`.markdown`, :mod:`.png` and
:mod:`.tables` render it; this module writes the files.
"""

from __future__ import annotations

from pathlib import Path

from casslab.analysis import AnalysisOptions
from casslab.errors import ReportError
from casslab.experiment.records import RunLayout
from casslab.report.build import build_report
from casslab.report.compare import build_comparison
from casslab.report.frames import intervals_frame, trials_frame
from casslab.report.html import render_html
from casslab.report.load import RunData, TrialData, load_run
from casslab.report.markdown import render_markdown
from casslab.report.png import render_png
from casslab.report.records import FigureSpec, Report, ReportPaths, VerdictRow
from casslab.report.tables import trials_csv, trials_parquet

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
    "load_run",
    "render_html",
    "render_markdown",
    "trials_frame",
    "write_report",
]

COMPARE_HTML = "compare.html"
COMPARE_MD = "compare.md"


def _write(path: Path, content: bytes | str) -> Path:
    """Write via a temporary file and rename, so a reader never sees half a file."""
    partial = path.with_name(path.name + ".partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            partial.write_text(content, encoding="utf-8")
        else:
            partial.write_bytes(content)
        partial.replace(path)
    except OSError as error:
        raise ReportError(
            f"write {path}: {error}; check that the directory is writable and the disk not full"
        ) from error
    return path


def _write_figures(report: Report, directory: Path) -> dict[str, Path]:
    return {
        figure.id: _write(directory / f"{figure.id}.png", render_png(figure))
        for figure in report.figures()
    }


def write_report(run_dir: Path, options: AnalysisOptions = AnalysisOptions()) -> ReportPaths:
    """Rebuild the report of a run directory from its files; returns what was written."""
    run = load_run(run_dir)
    layout = RunLayout(root=Path(run_dir))
    frame = trials_frame(run)
    parquet = _write(layout.trials_table, trials_parquet(frame))
    csv = _write(layout.trials_csv, trials_csv(frame))
    report = build_report(run, options)
    figures = _write_figures(report, layout.figures_dir)
    links = {key: path.relative_to(layout.root).as_posix() for key, path in figures.items()}
    summary = _write(layout.summary_md, render_markdown(report, links))
    html = _write(layout.report_html, render_html(report))
    return ReportPaths(
        report_html=html,
        summary_md=summary,
        trials_parquet=parquet,
        trials_csv=csv,
        figures=list(figures.values()),
    )


def compare_runs(
    run_a: Path, run_b: Path, out: Path, options: AnalysisOptions = AnalysisOptions()
) -> Path:
    """Compare run B with run A; writes ``compare.html`` and ``compare.md`` into ``out``.

    Returns the path of ``compare.html``.
    """
    report = build_comparison(load_run(run_a), load_run(run_b), options)
    _write(Path(out) / COMPARE_MD, render_markdown(report, full=True))
    return _write(Path(out) / COMPARE_HTML, render_html(report))
