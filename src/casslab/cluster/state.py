"""A cluster's state on disk: ``<clusters>/<name>/state.json`` and the ``current`` pointer.

Every backend keeps its state here, so every CLI call is independent of the last. The
pointer only ever names a cluster that exists: it moves when a cluster is created or
started, and is cleared when that cluster is removed.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from casslab.cluster.model import STATE_SCHEMA_VERSION, ClusterState
from casslab.errors import ClusterError
from casslab.paths import clusters_root, private_dir
from casslab.validation import validation_message

STATE_FILE = "state.json"
CURRENT_FILE = "current"


def cluster_dir(name: str, root: Path | None = None) -> Path:
    return (root or clusters_root()) / name


def state_file(name: str, root: Path | None = None) -> Path:
    return cluster_dir(name, root) / STATE_FILE


def chosen_name(name: str | None, root: Path | None = None) -> str:
    """``name``, else the current cluster's; an error saying how to make one if neither."""
    chosen = name or current(root)
    if chosen is None:
        raise ClusterError(
            "no cluster: start one with `casslab up --nodes 1` (or name one with --name)"
        )
    return chosen


def load(name: str, root: Path | None = None) -> ClusterState:
    """The state of cluster ``name``; a :class:`ClusterError` naming the fix when there is
    none, it is unreadable, or a newer casslab wrote it."""
    path = state_file(name, root)
    if not path.is_file():
        raise ClusterError(
            f"no cluster named {name!r} in {path.parent.parent}; "
            f"`casslab up --name {name}` creates it"
        )
    try:
        state = ClusterState.model_validate_json(path.read_text())
    except ValidationError as error:
        raise ClusterError(
            f"cluster state {path} is unreadable ({validation_message(error)}); "
            f"`casslab down --remove --name {name}` stops its nodes (found by their "
            "directory) and deletes it"
        ) from error
    if state.schema_version > STATE_SCHEMA_VERSION:
        raise ClusterError(
            f"cluster state {path} was written by a newer casslab (schema "
            f"{state.schema_version}, this one reads up to {STATE_SCHEMA_VERSION}); "
            "upgrade casslab to use it"
        )
    return state


def save(state: ClusterState) -> None:
    """Write ``state.json`` atomically (a reader never sees half a file)."""
    path = state.directory / STATE_FILE
    private_dir(path.parent)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(state.model_dump_json(indent=2))
    temporary.replace(path)


def _current_file(root: Path | None) -> Path:
    return (root or clusters_root()) / CURRENT_FILE


def current(root: Path | None = None) -> str | None:
    """The name of the current cluster, or None."""
    path = _current_file(root)
    if path.is_file():
        return path.read_text().strip() or None
    return None


def set_current(name: str, root: Path | None = None) -> None:
    path = _current_file(root)
    private_dir(path.parent)
    path.write_text(name + "\n")


def forget_current(name: str, root: Path | None = None) -> None:
    """Clear the current-cluster pointer if it names ``name``."""
    if current(root) == name:
        _current_file(root).unlink(missing_ok=True)
