"""``casslab report DIR`` and ``casslab compare RUN_A RUN_B``: parse, call, print paths."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from casslab.errors import UsageError

console = Console()


def report(
    run_dir: Annotated[
        Path, typer.Argument(metavar="DIR", help="Run directory: results/<experiment>/<run-id>.")
    ],
    window: Annotated[
        str | None,
        typer.Option(
            "--window",
            help="Cluster-metric figures: each cell's mean over its iterations in slots of "
            "this length (e.g. 30s, as seed 002 drew them) instead of every iteration.",
        ),
    ] = None,
) -> None:
    """Rebuild report.html, summary.md, figures/*.png and trials.parquet/.csv of a run."""
    from casslab.experiment.design.stored_plan import outline_of_manifest
    from casslab.report import write_report  # heavy (pandas, plotly): only when used
    from casslab.units import duration_s

    window_s = None
    if window is not None:
        window_s = duration_s(window)
        if window_s is None or window_s <= 0:
            raise UsageError(f"--window {window!r}: give a slot length such as 30s or 1m")
    paths = write_report(run_dir, legacy_plan=outline_of_manifest, window_s=window_s)
    for problem in paths.problems:
        console.print(f"[yellow]warning:[/] {escape(problem)}", highlight=False, soft_wrap=True)
    console.print(f"report:  {paths.report_html}", highlight=False, soft_wrap=True)
    console.print(f"summary: {paths.summary_md}", highlight=False, soft_wrap=True)
    console.print(
        f"trials:  {paths.trials_parquet}, {paths.trials_csv}", highlight=False, soft_wrap=True
    )
    console.print(
        f"figures: {len(paths.figures)} PNG files in {paths.report_html.parent / 'figures'}",
        highlight=False,
        soft_wrap=True,
    )


def compare(
    run_a: Annotated[Path, typer.Argument(metavar="RUN_A", help="Baseline run directory.")],
    run_b: Annotated[
        Path, typer.Argument(metavar="RUN_B", help="Run directory compared with the baseline.")
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output directory (default: RUN_B)."),
    ] = None,
) -> None:
    """Compare run B with run A; writes compare.html and compare.md."""
    from casslab.experiment.design.stored_plan import outline_of_manifest
    from casslab.report import compare_runs

    target = out if out is not None else run_b
    html = compare_runs(run_a, run_b, target, legacy_plan=outline_of_manifest)
    console.print(f"comparison: {html}", highlight=False, soft_wrap=True)
    console.print(f"summary:    {html.with_name('compare.md')}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add ``report`` and ``compare`` to the casslab app."""
    app.command("report")(report)
    app.command("compare")(compare)
