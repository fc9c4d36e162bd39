"""Module size (STYLE rule 2): past ~400 lines a module asks whether it is two, and cohesion
decides (``make lint`` lists those, ``scripts/long_modules.py``); past 800 lines it has
more than one job and this test fails. Data tables are exempt, each by name."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 800
DATA_TABLES = {
    "src/casslab/metrics/catalogue.py",  # every metric: name, unit, source, help
    "src/casslab/analysis/kpi_catalogue.py",  # every KPI: unit, direction, help
}


def test_no_module_is_over_800_lines() -> None:
    sources = [*(ROOT / "src" / "casslab").rglob("*.py"), *(ROOT / "engine" / "src").rglob("*.rs")]
    assert len(sources) > 100  # the tree was found
    long = {
        relative: lines
        for path in sources
        if (relative := str(path.relative_to(ROOT))) not in DATA_TABLES
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT
    }
    assert long == {}


def test_the_exempt_data_tables_exist() -> None:
    assert all((ROOT / path).is_file() for path in DATA_TABLES)
