"""The modules of casslab and of its engine by length: lists those over the review line
(400) for `make lint`, and exits 1 when one is over the hard limit (800) and is not a
data table. Cohesion decides a split; the lines only say where to look.

    python scripts/module_sizes.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REVIEW_LINES = 400
LIMIT_LINES = 800
# tables of data, one entry a row: their length is the data's, not a module's jobs
DATA_TABLES = frozenset(
    {"src/casslab/metrics/catalogue.py", "src/casslab/analysis/kpi_catalogue.py"}
)


def sources(root: Path = ROOT) -> list[Path]:
    return sorted(
        [*(root / "src" / "casslab").rglob("*.py"), *(root / "engine" / "src").rglob("*.rs")]
    )


def lengths(root: Path = ROOT) -> dict[str, int]:
    """Lines of every source module, by path relative to ``root``."""
    return {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sources(root)
    }


def over(found: dict[str, int], limit: int) -> dict[str, int]:
    return {name: lines for name, lines in found.items() if lines > limit}


def main() -> int:
    found = lengths()
    long = sorted(over(found, REVIEW_LINES).items(), key=lambda item: -item[1])
    if long:
        print(f"modules over {REVIEW_LINES} lines (does each still do one thing?):")
        for name, lines in long:
            note = " (data table)" if name in DATA_TABLES else ""
            print(f"  {lines:5d}  {name}{note}")
    too_long = {n: v for n, v in over(found, LIMIT_LINES).items() if n not in DATA_TABLES}
    for name, lines in sorted(too_long.items()):
        print(f"error: {name} has {lines} lines, over {LIMIT_LINES}: split it by job")
    return 1 if too_long else 0


if __name__ == "__main__":
    sys.exit(main())
