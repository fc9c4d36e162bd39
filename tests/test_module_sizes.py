"""The house rule of issue 10: no module of casslab or of its engine is over 500 lines (a
module that grows past it has more than one job: split it)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 500


def test_no_module_is_over_500_lines() -> None:
    sources = [*(ROOT / "src" / "casslab").rglob("*.py"), *(ROOT / "engine" / "src").rglob("*.rs")]
    assert len(sources) > 100  # the tree was found
    long = {
        str(path.relative_to(ROOT)): lines
        for path in sources
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT
    }
    assert long == {}
