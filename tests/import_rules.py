"""Checks of the package layering (DESIGN: arrows point down): which modules a package's
files import, and which modules importing it loads."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "casslab"


def imports_of(path: Path) -> set[str]:
    """The modules ``path`` imports (``import a.b`` and ``from a.b import c`` give ``a.b``;
    ``from casslab.cluster import local`` also gives ``casslab.cluster.local``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def offending_imports(files: Iterable[Path], forbidden: tuple[str, ...]) -> set[str]:
    """``file: module`` for every import of one of ``forbidden`` or a module under it (not
    of a sibling whose name merely begins the same: ``casslab.cluster.external_of``, a
    name the cluster package exports, is not under ``casslab.cluster.external``)."""
    return {
        f"{path.relative_to(SRC)}: {name}"
        for path in files
        for name in imports_of(path)
        if any(name == f or name.startswith(f"{f}.") for f in forbidden)
    }


def loaded_by(statement: str, forbidden: tuple[str, ...]) -> list[str]:
    """Modules under ``forbidden`` that executing ``statement`` in a fresh interpreter loads."""
    listing = f"sorted(m for m in sys.modules if m.startswith({forbidden!r}))"
    code = f"import sys; {statement}; print({listing})"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return list(ast.literal_eval(out.strip()))
