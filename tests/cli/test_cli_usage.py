"""Command-line usage errors print the usage and one error line, never a traceback (the
real entry point, `python -m casslab`, with the CLI framework that is installed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _casslab(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "casslab", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CASSLAB_HOME": str(home), "COLUMNS": "200"},
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "usage", "message"),
    [
        (["up", "--bogus"], "Usage: casslab up [OPTIONS]", "No such option: --bogus"),
        (
            ["up", "--nodes", "abc"],
            "Usage: casslab up [OPTIONS]",
            "Invalid value for '--nodes'",
        ),
        (["frob"], "Usage: casslab [OPTIONS] COMMAND", "No such command 'frob'"),
        (["run"], "Usage: casslab run [OPTIONS]", "Missing argument 'file'"),
        (["ycsb", "frob"], "Usage: casslab ycsb [OPTIONS] COMMAND", "No such command 'frob'"),
        (["metrics", "record"], "Usage: casslab metrics record", "Missing option '--duration'"),
    ],
)
def test_usage_errors_print_usage_not_a_traceback(
    tmp_path: Path, args: list[str], usage: str, message: str
) -> None:
    result = _casslab(tmp_path, *args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert usage in result.stderr
    assert f"Error: {message}" in result.stderr
    assert result.stdout == ""


def test_help_still_exits_zero(tmp_path: Path) -> None:
    result = _casslab(tmp_path, "up", "--help")
    assert result.returncode == 0, result.stderr
    assert "--nodes" in result.stdout
