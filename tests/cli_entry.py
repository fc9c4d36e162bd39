"""Run casslab through its real entry point (``python -m casslab``), as a user would, and
mark tests that need the built load engine."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import psutil
import pytest

from casslab.load.engine import engine_binary


def casslab(
    home: Path | None,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout_s: float = 600,
    cwd: Path | None = None,
    columns: int = 200,
    unset: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """``casslab ARGS`` with ``CASSLAB_HOME=home`` (None: the test session's) and ``env``
    on top of this process's environment, less the variables in ``unset``; output
    captured, never raises."""
    environment = {**os.environ, "COLUMNS": str(columns), **(env or {})}
    for name in unset:
        environment.pop(name, None)
    if home is not None:
        environment["CASSLAB_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "casslab", *args],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env=environment,
        cwd=cwd,
        check=False,
    )


def flat(text: str) -> str:
    """Text with its line breaks and runs of spaces folded (rich wraps long messages)."""
    return " ".join(text.split())


def processes_under(home: Path) -> list[int]:
    """PIDs of processes whose command line names ``home``: what a test started there."""
    found = []
    for process in psutil.process_iter(["pid", "cmdline"]):
        if str(home) in " ".join(process.info["cmdline"] or []):
            found.append(process.info["pid"])
    return found


def _engine_built() -> bool:
    try:
        return engine_binary().is_file()
    except Exception:  # noqa: BLE001 - any failure to locate it means "not built"
        return False


NEEDS_ENGINE = [
    pytest.mark.engine,
    pytest.mark.skipif(not _engine_built(), reason="engine binary not built (make engine)"),
]
"""``pytestmark`` entries of a test module that runs the load engine."""
