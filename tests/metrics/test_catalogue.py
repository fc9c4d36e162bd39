"""The catalogue and its generated page."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from casslab.metrics.catalogue import CATALOGUE, MetricKind, metric, names
from casslab.metrics.catalogue_doc import render_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"

# Names other parts (analysis, experiment KPIs) read: they must never change.
CONTRACT_NAMES = (
    "host.cpu_busy_pct",
    "host.memory_used_bytes",
    "host.disk_write_bytes_per_s",
    "cassandra.bytes_compacted",
    "cassandra.compactions_completed",
    "cassandra.compactions_pending",
    "cassandra.sstables",
)


def test_names_are_unique_and_dotted() -> None:
    all_names = [m.name for m in CATALOGUE]
    assert len(all_names) == len(set(all_names))
    sources = "host|process|cgroup|netns|cassandra|clock|engine"
    for name in all_names:
        assert re.fullmatch(rf"({sources})\.[a-z0-9_]+", name), name


@pytest.mark.parametrize("name", CONTRACT_NAMES)
def test_contract_names_exist(name: str) -> None:
    assert name in names()


@pytest.mark.parametrize(
    ("suffix", "unit"),
    [("_pct", "%"), ("_bytes", "B"), ("_bytes_per_s", "B/s"), ("_ms", "ms"), ("_per_s", "1/s")],
)
def test_unit_matches_name_suffix(suffix: str, unit: str) -> None:
    longer = {"_bytes": "_bytes_per_s", "_per_s": "_bytes_per_s"}
    for m in CATALOGUE:
        if m.name.endswith(suffix) and not m.name.endswith(longer.get(suffix, "\0")):
            assert m.unit == unit, m.name


def test_rates_are_per_second_and_counters_are_not() -> None:
    for m in CATALOGUE:
        if m.kind is MetricKind.RATE:
            assert m.name.endswith("_per_s"), m.name
        else:
            assert not m.name.endswith("_per_s"), m.name


def test_every_entry_has_help() -> None:
    assert all(len(m.help) > 15 and m.unit for m in CATALOGUE)


def test_lookup_by_name() -> None:
    assert metric("cassandra.sstables").kind is MetricKind.GAUGE
    assert metric("cassandra.bytes_compacted").kind is MetricKind.COUNTER
    with pytest.raises(KeyError):
        metric("cassandra.no_such_metric")


def test_checked_in_doc_equals_generated() -> None:
    assert DOC.read_text() == render_markdown(), (
        "docs/metrics.md is stale: run `python -m casslab.metrics > docs/metrics.md`"
    )


def test_make_docs_command_writes_the_page() -> None:
    """``make docs`` runs ``python -m casslab.metrics``: it prints the generated page."""
    done = subprocess.run(
        [sys.executable, "-m", "casslab.metrics"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout == render_markdown()


def test_doc_lists_every_metric_once() -> None:
    text = render_markdown()
    for m in CATALOGUE:
        assert text.count(f"| `{m.name}` |") == 1
