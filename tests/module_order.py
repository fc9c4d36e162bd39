"""The order in which the test modules run: the longest first, by the seconds each took in a
full ``make test`` (``tests/module_times.tsv``, written by ``scripts/test_report.py`` into
``.test-reports/`` after each run; copy it over to keep the order current).

``make test`` gives whole modules to its two workers (``--dist loadfile``) in collection
order (``--no-loadscope-reorder``: pytest-xdist's default sorts them by their number of
tests instead, which undid this order until 2026-11-29), so a long module that comes last
runs alone at the end while the other worker idles. Longest first (a greedy schedule) ends
the two workers close together. A module without a recorded time (a new one) counts as the
recorded modules' mean. Tests keep their order inside a module, so module fixtures are made
once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

TIMES = Path(__file__).with_name("module_times.tsv")


def read_times(text: str) -> dict[str, float]:
    """``SECONDS<TAB>MODULE PATH`` or ``SECONDS<TAB>CPU SECONDS<TAB>MODULE PATH`` per line
    (``#`` comments and blank lines skipped): the seconds of each module."""
    times: dict[str, float] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        times[fields[-1]] = float(fields[0])
    return times


def module_of(nodeid: str) -> str:
    """``tests/a/test_b.py::test_c[x]`` -> ``tests/a/test_b.py``."""
    return nodeid.split("::", 1)[0]


def longest_first(nodeids: Sequence[str], times: Mapping[str, float]) -> list[int]:
    """The positions of ``nodeids`` in run order: by recorded time, longest first, a module
    without one at the recorded mean; ties and the tests of one module keep their order."""
    unknown = sum(times.values()) / len(times) if times else 0.0
    return sorted(range(len(nodeids)), key=lambda i: -times.get(module_of(nodeids[i]), unknown))
