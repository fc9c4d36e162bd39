"""Captured data of a local cluster: a keyspace's SSTables kept once, loaded back per trial;
and the nodes' snapshots on disk (listed, cleared by a reset).

A preload of the same data runs once per cluster configuration, not once per trial:
:func:`capture` takes a snapshot of the keyspace on every node (Cassandra flushes its
memtables first and hard-links the live SSTables), and moves the snapshot out of the data
directory into the cluster's ``captures/<name>/node<n>/<table>/``, where no reset or
compaction touches it. :func:`restore` hard-links those files into a fresh staging
directory per table and hands it to ``nodetool import`` (Cassandra's
``importNewSSTables``: it verifies the SSTables and their tokens, and moves the files into
the table). The capture stays as it was, so every trial starts from the identical files
on disk. Hard links cost no copy: the capture shares the disk blocks it was taken from.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from casslab.cluster.model import Node
from casslab.errors import ClusterError

NodetoolRunner = Callable[..., str]
"""``nodetool(number, *args)`` of the cluster that owns the nodes."""

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
# Files of a snapshot that are not SSTable components.
_NOT_COMPONENTS = {"manifest.json", "schema.cql"}


def _table_name(table_dir: Path) -> str:
    """``standard1-5c3e...`` -> ``standard1`` (a table directory is ``<table>-<id>``)."""
    return table_dir.name.rsplit("-", 1)[0]


def capture_dir(root: Path, name: str) -> Path:
    if not _NAME_RE.match(name):
        raise ClusterError(f"capture name {name!r}: use letters, digits, '_', '.' or '-'")
    return root / "captures" / name


def capture(
    nodes: list[Node], nodetool: NodetoolRunner, root: Path, name: str, keyspace: str
) -> Path:
    """Snapshot ``keyspace`` on every node and keep it as capture ``name`` under ``root``;
    returns its directory. An earlier capture of that name is replaced."""
    target = capture_dir(root, name)
    shutil.rmtree(target, ignore_errors=True)
    tag = f"casslab-capture-{name}"
    for node in nodes:
        nodetool(node.number, "snapshot", "-t", tag, keyspace)
        node_dir = target / f"node{node.number}"
        node_dir.mkdir(parents=True)
        for snapshot in sorted((node.data_dir / keyspace).glob(f"*/snapshots/{tag}")):
            table_dir = snapshot.parent.parent
            os.replace(snapshot, node_dir / _table_name(table_dir))
    return target


def captured_tables(target: Path, node: Node) -> list[Path]:
    """The table directories of ``node`` in the capture at ``target``."""
    node_dir = target / f"node{node.number}"
    if not node_dir.is_dir():
        raise ClusterError(
            f"capture {target.name}: node {node.number} has no captured data in {node_dir}; "
            "capture again"
        )
    return sorted(p for p in node_dir.iterdir() if p.is_dir())


def restore(
    nodes: list[Node], nodetool: NodetoolRunner, root: Path, name: str, keyspace: str
) -> int:
    """Load capture ``name`` back into ``keyspace`` (its tables must exist, empty) on every
    node; returns the number of SSTable files loaded."""
    target = capture_dir(root, name)
    if not target.is_dir():
        raise ClusterError(f"no capture {name!r} in {target.parent}; capture it first")
    loaded = 0
    for node in nodes:
        for table in captured_tables(target, node):
            stage = target / "stage" / f"node{node.number}" / table.name
            shutil.rmtree(stage, ignore_errors=True)
            stage.mkdir(parents=True)
            files = [f for f in table.iterdir() if f.is_file() and f.name not in _NOT_COMPONENTS]
            for file in files:
                os.link(file, stage / file.name)
            if files:
                nodetool(node.number, "import", keyspace, table.name, str(stage))
            loaded += len(files)
    shutil.rmtree(target / "stage", ignore_errors=True)
    return loaded


def drop(root: Path, name: str) -> None:
    """Delete capture ``name`` (its hard links; the nodes' live files are not touched)."""
    shutil.rmtree(capture_dir(root, name), ignore_errors=True)


def clear_snapshots(nodes: Sequence[Node]) -> None:
    """Delete every snapshot of every node. A local node's snapshots are hard-link
    directories under ``data/<keyspace>/<table>/snapshots``; removing them from disk frees
    the space without a nodetool JVM per node (``listsnapshots`` agrees, see the tests).
    Directories of dropped keyspaces hold only snapshots and go entirely."""
    for node in nodes:
        for snapshot_dir in node.data_dir.glob("*/*/snapshots"):
            shutil.rmtree(snapshot_dir, ignore_errors=True)


def snapshot_dirs(nodes: Sequence[Node]) -> list[Path]:
    """Snapshot directories on disk across ``nodes``."""
    found: list[Path] = []
    for node in nodes:
        if node.data_dir.exists():
            found += [p for p in node.data_dir.glob("*/*/snapshots/*") if p.is_dir()]
    return found
