"""Waits with a deadline and a probe (house rule 7)."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from casslab.errors import WaitTimeoutError

T = TypeVar("T")


def wait_for(
    probe: Callable[[], T | None],
    *,
    what: str,
    limit_s: float,
    hint: str = "",
    interval_s: float = 0.25,
) -> T:
    """Call ``probe`` until it returns something other than None, or raise WaitTimeoutError
    naming what was awaited, the time waited and the limit."""
    start = time.monotonic()
    while True:
        result = probe()
        if result is not None:
            return result
        elapsed = time.monotonic() - start
        if elapsed >= limit_s:
            suffix = f"; {hint}" if hint else ""
            raise WaitTimeoutError(
                f"timed out waiting for {what} after {elapsed:.1f} s (limit {limit_s:.0f} s)"
                f"{suffix}"
            )
        time.sleep(interval_s)


def port_open(address: str, port: int, timeout_s: float = 0.5) -> bool:
    try:
        with socket.create_connection((address, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def port_free(address: str, port: int) -> bool:
    """True when nothing listens on ``address:port`` (we can bind it ourselves)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, port))
        except OSError:
            return False
    return True


class LogWatcher:
    """Reads a growing log file incrementally; finds a line without rereading it all."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._partial = ""

    def find(self, needle: str) -> str | None:
        """The first new line holding ``needle`` (the lines before it are consumed)."""
        for line in self.new_lines():
            if needle in line:
                return line
        return None

    def new_lines(self) -> list[str]:
        """The complete lines written since the last call (none when the file is absent)."""
        try:
            with self.path.open("r", errors="replace") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
                self._offset = handle.tell()
        except FileNotFoundError:
            return []
        lines = (self._partial + chunk).split("\n")
        self._partial = lines.pop()
        return lines


def tail(path: Path, lines: int = 20) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - 64 * 1024))
            data = handle.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return f"({path} does not exist)"
    return "\n".join(data.splitlines()[-lines:])


_STARTUP_EXCEPTION = re.compile(r"Exception \(([\w.$]+)\) encountered during startup: (.+)")
_EXCEPTION_LINE = re.compile(r"^(?:Caused by: )?[\w.$]+(?:Exception|Error): (.+)$", re.MULTILINE)


def startup_reason(*texts: str) -> str | None:
    """Why Cassandra refused to start, from its standard output and system.log: the
    message of "Exception (…) encountered during startup: …" if there is one, else of the
    first exception line. None when the texts hold neither."""
    for text in texts:
        match = _STARTUP_EXCEPTION.search(text)
        if match:
            return match.group(2).strip()
    for text in texts:
        match = _EXCEPTION_LINE.search(text)
        if match:
            return match.group(1).strip()
    return None
