"""Headless Chromium (Debian's ``chromium`` package) as a test instrument: load a page
from a file with name resolution disabled, and report the DOM after scripts ran, console
messages and uncaught errors, and any request to a non-file URL (Chromium's NetLog).
Shared by the report's own browser tests and the real-experiment test.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--virtual-time-budget=20000",
)
TIMEOUT_S = 180

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium not installed: apt-get update && apt-get install -y chromium",
)


@dataclass(frozen=True)
class PageLoad:
    dom: str
    console: list[str]  # console messages and uncaught errors
    external: list[str]  # URLs the page requested that are not file/data/blob
    stderr: str


def _page_requests(netlog: Path) -> list[str]:
    events = json.loads(netlog.read_text(encoding="utf-8")).get("events", [])
    out: list[str] = []
    for event in events:
        params = event.get("params") or {}
        url = params.get("url")
        key = str(params.get("network_isolation_key", ""))
        if url and key.startswith("file://") and not re.match(r"(file|data|blob):", url):
            out.append(url)
    return sorted(set(out))


def open_page(page: Path, work: Path) -> PageLoad:
    """Load ``page`` in headless Chromium; the DOM after scripts ran, console, requests."""
    assert CHROMIUM is not None
    netlog = work / "netlog.json"
    command = [
        CHROMIUM,
        *FLAGS,
        f"--user-data-dir={work / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        f"--log-net-log={netlog}",
        "--dump-dom",
        page.resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0, f"chromium exited {done.returncode}: {done.stderr[-2000:]}"
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return PageLoad(
        dom=done.stdout, console=console, external=_page_requests(netlog), stderr=done.stderr
    )


def screenshot(page: Path, png: Path, work: Path, height_px: int = 3000) -> None:
    assert CHROMIUM is not None
    command = [
        CHROMIUM,
        *FLAGS,
        f"--user-data-dir={work / 'profile-shot'}",
        f"--screenshot={png}",
        f"--window-size=1400,{height_px}",
        "--hide-scrollbars",
        page.resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0, (
        f"chromium screenshot exited {done.returncode}: {done.stderr[-2000:]}"
    )
    assert png.is_file()


def figure_divs(dom: str) -> dict[str, str]:
    """Figure id -> the DOM of its plot div (up to the next figure)."""
    parts = re.split(r'(?=<div id="fig-)', dom)
    out: dict[str, str] = {}
    for part in parts[1:]:
        match = re.match(r'<div id="fig-([^"]+)"', part)
        if match:
            out[match.group(1)] = part
    return out
