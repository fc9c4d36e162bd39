"""Fuzz pass over the experiment-file loader (:mod:`fuzz_inputs`): a valid file with lines
mutated, dropped, doubled or nested."""

from __future__ import annotations

import random

from casslab.experiment.file import experiment_loader
from fuzz_inputs import fuzz, mutate

LINES = [
    "name: fuzz",
    "cluster: {nodes: 1, heap: 512M}",
    "schema:",
    "  keyspace: keyspace1",
    "  replication: {class: SimpleStrategy, replication_factor: 1}",
    "factors:",
    "  table.compaction: [STCS, LCS]",
    "  threads: [4, 8]",
    "design: factorial",
    'workload: "write"',
    'measure: "duration=90s cl=ONE -rate threads=4"',
    "iterations: 3",
    "order: {kind: randomized, seed: 1}",
    "faults:",
    "  - {at: 5s, kind: kill, target: 1, for: 10s}",
    "table: {gc_grace_seconds: 0}",
]


def _document(rng: random.Random) -> str:
    lines = list(LINES)
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(lines))
        action = rng.random()
        if action < 0.6:
            lines[at] = mutate(rng, lines[at])
        elif action < 0.8:
            del lines[at]
        else:
            lines.insert(at, lines[at])
    return "\n".join(lines) + "\n"


def _parse(given: object) -> object:
    assert isinstance(given, str)
    return experiment_loader.parse(given, "fuzz.yaml")


def test_experiment_loader_fuzz_finds_no_traceback_or_hang() -> None:
    assert fuzz(38, 4.0, _document, _parse) > 20
