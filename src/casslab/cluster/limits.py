"""Value ranges Cassandra enforces at start-up, checked by casslab before any node starts.

The settings catalogue (:mod:`casslab.cluster.settings`) knows each key's *type* from the
``Config`` class; the *ranges* live in Cassandra's ``DatabaseDescriptor`` start-up checks,
which a node only applies after its JVM is up, dumping its whole configuration before the
reason. The bounds below are the ones Cassandra 5.0's ``DatabaseDescriptor`` states in its
own messages ("concurrent_compactors should be strictly greater than 0", "memtable_cleanup_
threshold must be >= 0.01", …), so a value casslab refuses is one Cassandra would refuse.
Pure: values in, problems out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_SIZE_RE = re.compile(r"^(\d+)(GiB|MiB|KiB|B)$")
_SIZE_FACTORS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


@dataclass(frozen=True)
class Limit:
    """Inclusive bounds of a numeric setting (a size setting is compared in bytes)."""

    minimum: float | None = None
    maximum: float | None = None
    example: str = ""

    def describe(self) -> str:
        if self.minimum is not None and self.maximum is not None:
            return f"between {_number(self.minimum)} and {_number(self.maximum)}"
        if self.minimum is not None:
            return f"at least {_number(self.minimum)}"
        return f"at most {_number(self.maximum or 0)}"


LIMITS: dict[str, Limit] = {
    "concurrent_reads": Limit(minimum=2, example="32"),
    "concurrent_writes": Limit(minimum=2, example="32"),
    "concurrent_counter_writes": Limit(minimum=2, example="32"),
    "concurrent_compactors": Limit(minimum=1, example="2"),
    "concurrent_materialized_view_builders": Limit(minimum=1, example="1"),
    "memtable_flush_writers": Limit(minimum=1, example="2"),
    "memtable_cleanup_threshold": Limit(minimum=0.01, maximum=0.99, example="0.11"),
    "phi_convict_threshold": Limit(minimum=5, maximum=16, example="8"),
    "default_keyspace_rf": Limit(minimum=1, example="1"),
    "num_tokens": Limit(minimum=1, example="16"),
    "max_space_usable_for_compactions_in_percentage": Limit(minimum=0, maximum=1, example="0.95"),
    "memtable_heap_space": Limit(minimum=1, example="2048MiB"),
    "commitlog_segment_size": Limit(minimum=1, maximum=2047 * 1024**2, example="32MiB"),
}


def _number(value: float) -> str:
    if value >= 1024 and float(value).is_integer() and value % 1024**2 == 0:
        return f"{int(value) // 1024**2}MiB"
    return f"{value:g}"


def _magnitude(value: Any) -> float | None:
    """A setting's value as a number: ints and floats as they are, sizes in bytes."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = _SIZE_RE.match(value)
        if match:
            return float(int(match.group(1)) * _SIZE_FACTORS[match.group(2)])
    return None


def range_problem(key: str, value: Any, cassandra_version: str) -> str | None:
    """Why ``value`` is out of the range Cassandra accepts for ``key``, or None."""
    limit = LIMITS.get(key)
    magnitude = _magnitude(value)
    if limit is None or magnitude is None:
        return None
    low = limit.minimum is not None and magnitude < limit.minimum
    high = limit.maximum is not None and magnitude > limit.maximum
    if not (low or high):
        return None
    return (
        f"{key}: {value!r} is out of range; Cassandra {cassandra_version} requires "
        f"{limit.describe()} and would refuse to start (e.g. --set {key}={limit.example})"
    )
