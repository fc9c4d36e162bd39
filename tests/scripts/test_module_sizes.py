"""The house rule on module length (issue 30): a module past 800 lines fails, data tables
exempt; `make lint` lists the modules past 400 for a look (scripts/module_sizes.py)."""

from __future__ import annotations

from pathlib import Path

from script_files import script


def test_no_module_is_over_the_limit_but_data_tables() -> None:
    sizes = script("module_sizes")
    found = sizes.lengths()
    assert len(found) > 100  # the tree was found
    for table in sizes.DATA_TABLES:
        assert table in found, f"{table} is listed as a data table but does not exist"
    too_long = {
        name: lines
        for name, lines in sizes.over(found, sizes.LIMIT_LINES).items()
        if name not in sizes.DATA_TABLES
    }
    assert too_long == {}


def test_the_report_lists_long_modules_and_fails_past_the_limit(tmp_path: Path) -> None:
    sizes = script("module_sizes")
    package = tmp_path / "src" / "casslab"
    package.mkdir(parents=True)
    (package / "short.py").write_text("x = 1\n" * 10)
    (package / "long.py").write_text("x = 1\n" * 450)
    (package / "huge.py").write_text("x = 1\n" * 801)
    found = sizes.lengths(tmp_path)
    assert sizes.over(found, sizes.REVIEW_LINES) == {
        "src/casslab/long.py": 450,
        "src/casslab/huge.py": 801,
    }
    assert sizes.over(found, sizes.LIMIT_LINES) == {"src/casslab/huge.py": 801}
