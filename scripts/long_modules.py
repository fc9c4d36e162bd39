"""List the modules of casslab and of its engine over 400 lines (``make lint`` runs it).

STYLE rule 2: past ~400 lines a module asks whether it is two; cohesion decides, not the
count, so this only reports. ``tests/test_module_sizes.py`` fails past 800 lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT_OVER = 400


def line_counts() -> dict[str, int]:
    """Lines of every Python module of the package and Rust module of the engine."""
    sources = [*(ROOT / "src" / "casslab").rglob("*.py"), *(ROOT / "engine" / "src").rglob("*.rs")]
    return {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sources
    }


def main() -> int:
    long = sorted(((n, p) for p, n in line_counts().items() if n > REPORT_OVER), reverse=True)
    if long:
        print(f"modules over {REPORT_OVER} lines (is each one job?):")
        for lines, path in long:
            print(f"  {lines:5d}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
