"""The store is a leaf above the ground floor and the engine contract: it imports neither the
statistics, the load package, the experiment, the report, the clusters nor the CLI."""

from __future__ import annotations

from import_rules import SRC, loaded_by, offending_imports

FORBIDDEN = (
    "casslab.experiment",
    "casslab.report",
    "casslab.cli",
    "casslab.cluster",
    "casslab.analysis",
    "casslab.load",
)


def test_no_store_module_imports_a_package_above_it() -> None:
    assert offending_imports((SRC / "store").glob("*.py"), FORBIDDEN) == set()


def test_importing_the_whole_store_loads_nothing_above_it() -> None:
    statement = "import casslab.store, casslab.store.run_data"
    assert loaded_by(statement, FORBIDDEN) == []
