"""Where casslab keeps things on this machine: one place for every path it owns."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "CASSLAB_HOME"


def home() -> Path:
    """``$CASSLAB_HOME`` or ``~/.local/share/casslab``: clusters and their state live
    under it (the Cassandra jar cache is elsewhere, see :mod:`casslab.cluster.distribution`)."""
    env = os.environ.get(HOME_ENV)
    return Path(env) if env else Path.home() / ".local" / "share" / "casslab"


def cache_root() -> Path:
    """``$CASSLAB_CACHE`` or ``~/.cache/casslab``: what casslab downloads or derives once
    (Cassandra's jars, class-data archives, vector datasets)."""
    env = os.environ.get("CASSLAB_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "casslab"


def clusters_root() -> Path:
    """The folder of every cluster's directory (``<name>/state.json``, node folders)."""
    return home() / "clusters"


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) readable by its owner only, whatever the umask:
    cluster state and run directories can hold credentials."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o700)
    return path
