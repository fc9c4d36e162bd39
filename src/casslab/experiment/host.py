"""Facts about the machine and the code that a run records in its manifest."""

from __future__ import annotations

import platform
import socket
import subprocess
import sys
from pathlib import Path

import psutil

from casslab.store.records import HostFacts


def host_facts() -> HostFacts:
    return HostFacts(
        hostname=socket.gethostname(),
        os=platform.platform(),
        kernel=platform.release(),
        cpus=psutil.cpu_count() or 0,
        memory_bytes=psutil.virtual_memory().total,
        python=sys.version.split()[0],
    )


def git_revision(directory: Path | None = None) -> str | None:
    """The git revision of the casslab checkout (``+dirty`` with local changes), if any."""
    where = directory or Path(__file__).resolve().parent
    try:
        revision = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if revision.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    suffix = "+dirty" if dirty.stdout.strip() else ""
    return revision.stdout.strip() + suffix
