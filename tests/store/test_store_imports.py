"""The store is a leaf: it imports neither the experiment, the report nor the CLI."""

from __future__ import annotations

from import_rules import SRC, loaded_by, offending_imports

FORBIDDEN = ("casslab.experiment", "casslab.report", "casslab.cli", "casslab.cluster")


def test_no_store_module_imports_a_package_above_it() -> None:
    assert offending_imports((SRC / "store").glob("*.py"), FORBIDDEN) == set()


def test_importing_the_whole_store_loads_nothing_above_it() -> None:
    statement = "import casslab.store, casslab.store.run_data, casslab.results"
    assert loaded_by(statement, FORBIDDEN) == []
