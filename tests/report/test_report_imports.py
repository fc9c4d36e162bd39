"""The report reads runs through the store: it imports nothing of the experiment package
(whose runner imports the report), so no import cycle between the two remains."""

from __future__ import annotations

from import_rules import SRC, loaded_by, offending_imports

FORBIDDEN = ("casslab.experiment", "casslab.cli")


def test_no_report_module_imports_the_experiment_package() -> None:
    assert offending_imports((SRC / "report").glob("*.py"), FORBIDDEN) == set()


def test_importing_the_report_loads_no_experiment_module() -> None:
    assert loaded_by("import casslab.report", FORBIDDEN) == []
