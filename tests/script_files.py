"""The project's scripts (scripts/*.py) and benchmarks (bench/*.py) imported as modules,
for the tests of their pure helpers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def script(name: str, folder: str = "scripts") -> ModuleType:
    """``folder``/``name``.py as a module (scripts/ or bench/)."""
    module_name = name if folder == "scripts" else f"{folder}_{name}"
    spec = importlib.util.spec_from_file_location(module_name, ROOT / folder / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
