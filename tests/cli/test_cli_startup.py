"""Every `casslab` command starts without the heavy libraries: `casslab stress` is timed by
its users (bench/engine_vs_latte.py counts its CPU against latte's), so the statistics,
plotting, data-frame and driver libraries load only in the commands that use them."""

from __future__ import annotations

from import_rules import loaded_by

HEAVY = ("scipy", "pandas", "matplotlib", "plotly", "pyarrow", "cassandra")


def test_the_command_line_loads_no_heavy_library_at_start() -> None:
    assert loaded_by("import casslab.cli.main", HEAVY) == []


def test_the_kpi_catalogue_loads_no_heavy_library() -> None:
    """Experiment files are checked against it at every `casslab plan` and `run`."""
    statement = (
        "import casslab.analysis.analysis_records, casslab.experiment.file.experiment_loader"
    )
    assert loaded_by(statement, HEAVY) == []
