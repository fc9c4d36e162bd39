"""The store is a leaf: it imports neither the experiment, the report nor the CLI."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import casslab.store

STORE = Path(casslab.store.__file__).parent
FORBIDDEN = ("casslab.experiment", "casslab.report", "casslab.cli", "casslab.cluster")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_store_module_imports_a_package_above_it() -> None:
    offending = {
        f"{path.name}: {name}"
        for path in STORE.glob("*.py")
        for name in _imports(path)
        if name.startswith(FORBIDDEN)
    }
    assert offending == set()


def test_importing_the_whole_store_loads_nothing_above_it() -> None:
    code = (
        "import sys, casslab.store, casslab.store.results, casslab.results; "
        f"print(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_light_store_does_not_load_pandas() -> None:
    code = "import sys, casslab.store; print('pandas' in sys.modules, 'pyarrow' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False False"
