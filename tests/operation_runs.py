"""What the operations' real-node tests share (tests/faults/test_operations_integration.py,
test_decommission_integration.py, test_upgrade_integration.py): a 2-node cluster of the
module's own, an experiment file run on it, and its one trial read back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_entry import casslab
from jit import UP_LIGHT

RING_DELAY_MS = 5000


def two_nodes(
    factory: pytest.TempPathFactory, label: str, name: str, *up_words: str
) -> Iterator[Path]:
    """A CASSLAB_HOME with cluster ``name`` of 2 nodes up (``up_words``: its place, version),
    removed after the module. The nodes' ring delay is 5 s, not Cassandra's 30 (RING_DELAY:
    what a joining node waits for pending ranges, a leaving one for batches, twice): two or
    three nodes on one machine agree by gossip within a second or two, and the tests need
    the joins and leaves, not the default timing. The JVMs are light (:mod:`jit`), for
    the same reason: these modules start and restart JVMs under a 200 op/s load."""
    folder = factory.mktemp(f"{label}-home")
    up = casslab(
        folder,
        "up",
        *("--nodes", "2", "--name", name, *up_words, "--timeout", "300"),
        *("--jvm-option", f"-Dcassandra.ring_delay_ms={RING_DELAY_MS}"),
        *UP_LIGHT,
    )
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        yield folder
    finally:
        casslab(folder, "down", "--remove", "--name", name)


def run_file(home: Path, tmp_path: Path, name: str, text: str) -> tuple[Path, str, int]:
    """``casslab run`` of experiment ``text`` (written as ``name``.yaml): its results root,
    what it said, its exit code."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    results = tmp_path / name
    done = casslab(home, "run", str(path), "--results", str(results), "--jvm-warmup", "0")
    return results, done.stdout + done.stderr, done.returncode


def only_trial(results: Path, said: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run's one trial: its summary (status ok) and its faults.json."""
    [summary_path] = results.glob("*/*/trials/*/1/summary.json")
    summary = json.loads(summary_path.read_text())
    assert summary["status"] == "ok", (summary.get("error"), said[-3000:])
    faults = json.loads((summary_path.parent / "faults.json").read_text())
    return summary, faults
