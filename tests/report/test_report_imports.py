"""The report reads runs through the store: it imports nothing of the experiment package
(whose runner imports the report), so no import cycle between the two remains."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import casslab.report

REPORT = Path(casslab.report.__file__).parent
FORBIDDEN = ("casslab.experiment", "casslab.cli")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_report_module_imports_the_experiment_package() -> None:
    offending = {
        f"{path.name}: {name}"
        for path in REPORT.glob("*.py")
        for name in _imports(path)
        if name.startswith(FORBIDDEN)
    }
    assert offending == set()


def test_importing_the_report_loads_no_experiment_module() -> None:
    code = (
        "import sys, casslab.report; "
        f"print(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
