"""``casslab report DIR`` and ``casslab compare RUN_A RUN_B``: parse, call, print paths."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from casslab.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from casslab.analysis.claim_records import Claim

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
    claims_file: Annotated[
        Path | None,
        typer.Option(
            "--claims",
            metavar="FILE",
            help="Judge the claims of this experiment file (the run's own, edited since: "
            "e.g. a run made before the file had claims) instead of the run's.",
        ),
    ] = None,
) -> None:
    """Rebuild report.html, summary.md, figures/*.png and trials.parquet/.csv of a run."""
    from casslab.units import duration_s

    window_s = None  # checked before the report's heavy imports: a typo answers at once
    if window is not None:
        window_s = duration_s(window)
        if window_s is None or window_s <= 0:
            raise UsageError(f"--window {window!r}: give a slot length such as 30s or 1m")
    claims = None if claims_file is None else _claims_of(claims_file, run_dir)

    from casslab.experiment.design.stored_plan import outline_of_manifest
    from casslab.report import write_report  # heavy (pandas, plotly): only when used

    paths = write_report(run_dir, legacy_plan=outline_of_manifest, window_s=window_s, claims=claims)
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


def _claims_of(file: Path, run_dir: Path) -> list[Claim]:
    """The claims of experiment ``file``, which must be of the run's experiment."""
    from casslab.experiment.file.experiment_loader import load
    from casslab.store.layout import RunLayout
    from casslab.store.run_records import read_manifest

    experiment = load(file)
    ran = read_manifest(RunLayout(root=run_dir).manifest).experiment_name
    if experiment.name != ran:
        raise ConfigError(
            f"--claims {file}: it is experiment {experiment.name!r}, the run is of {ran!r}; "
            "give the run's experiment file"
        )
    return list(experiment.claims)


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
